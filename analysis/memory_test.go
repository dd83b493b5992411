package analysis

import (
	"bytes"
	"runtime"
	"testing"
	"testing/iotest"
)

// TestBoundedMemory: reading 20 MB allocates a small, fixed amount,
// whatever the shape, from a reader or through a Stream (a line at most
// MaxLine).
func TestBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("generates 20 MB outputs")
	}
	for _, format := range []string{"claude-stream", "claude-json", "codex-jsonl", "opencode-jsonl", "text"} {
		data := generated(t, format, 20)
		for _, mode := range []string{"seekable", "one-pass", "stream"} {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			r := bytes.NewReader(data)
			var err error
			switch mode {
			case "seekable":
				_, err = Analyze(r, Options{})
			case "one-pass":
				_, err = Analyze(iotest.HalfReader(r), Options{})
			default:
				s := NewStream(Options{})
				r.WriteTo(s)
				_, err = s.Finish(Ending{})
			}
			runtime.ReadMemStats(&after)
			if err != nil {
				t.Fatal(err)
			}
			// A line is held up to MaxLine (a buffer that doubles): the
			// Claude JSON result is one 20 MB line, skipped at the cap.
			limit := uint64(12 << 20)
			if format == "claude-json" {
				limit = 2*MaxLine + 4<<20
			}
			if got := after.TotalAlloc - before.TotalAlloc; got > limit {
				t.Errorf("%s (%s): %d MB allocated for a %d MB output", format, mode, got>>20, len(data)>>20)
			}
		}
	}
}
