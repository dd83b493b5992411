package drivers

import (
	"slices"
	"strings"
	"testing"

	"github.com/ralphloop/ralph_loop/analysis"
)

// TestClaudeDeltasCut: a stream cut before its result keeps the first
// maxDeltas bytes of an unfinished message's text deltas and says so.
func TestClaudeDeltasCut(t *testing.T) {
	var out strings.Builder
	out.WriteString(`{"type":"system","subtype":"init","session_id":"s"}` + "\n")
	piece := strings.Repeat("x", 64<<10)
	for range 17 { // 1.06 MiB
		out.WriteString(`{"type":"stream_event","event":{"type":"content_block_delta","delta":{"type":"text_delta","text":"` + piece + `"}}}` + "\n")
	}
	res, err := analysis.Analyze(strings.NewReader(out.String()), analysis.Options{Formats: Formats("claude-code")})
	if err != nil {
		t.Fatal(err)
	}
	note := "note: a message text longer than 1048576 bytes was cut"
	if res.Format != analysis.FormatStreamJSON || !slices.Contains(res.Reasons, note) {
		t.Errorf("format %s, reasons %q: want %s and %q", res.Format, res.Reasons, analysis.FormatStreamJSON, note)
	}
}
