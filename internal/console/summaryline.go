package console

import "github.com/ralphloop/ralph_loop/internal/clip"

// SummaryLine is the agent's summary as the Response Analysis box shows
// it: one line, no RALPH_STATUS block, at most 200 bytes.
func SummaryLine(s string) string { return clip.Bytes(boxSummary(s), 200) }
