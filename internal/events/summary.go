package events

import (
	"strings"

	"github.com/ralphloop/ralph_loop/internal/clip"
	"github.com/ralphloop/ralph_loop/internal/lazyre"
)

var (
	// statusBlock is the RALPH_STATUS block (to its end marker, or to the
	// end of the reply when the marker is missing).
	statusBlock = lazyre.Compile(`(?s)-{3}\s*RALPH_STATUS\s*-{3}.*?(-{3}\s*END_RALPH_STATUS\s*-{3}|$)`)
	// summaryLabel is a leading "Summary:" (also "**Summary:**", "## Summary").
	summaryLabel = lazyre.Compile(`(?i)^[\s#*_>-]*summary\s*:?[\s*_]*`)
	summaryLine  = lazyre.Compile(`(?im)^[\s#*_>-]*summary\b[\s*_]*:?[\s*_]*(\S.*)$`)
)

// boxSummary is the agent's own summary as the Response Analysis box
// shows it: without the RALPH_STATUS block, and without a "Summary:" label
// of its own (the box has one), on one line. A reply with a "Summary:"
// line is summarised by that line.
func boxSummary(s string) string {
	s = statusBlock().ReplaceAllString(s, " ")
	if m := summaryLine().FindStringSubmatch(s); m != nil {
		s = m[1]
	}
	for {
		t := summaryLabel().ReplaceAllString(s, "")
		if t == s {
			break
		}
		s = t
	}
	return strings.Join(strings.Fields(s), " ")
}

// SummaryLine is the agent's summary as the Response Analysis box shows
// it: one line, no RALPH_STATUS block, at most 200 bytes.
func SummaryLine(s string) string { return clip.Bytes(boxSummary(s), 200) }
