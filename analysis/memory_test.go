package analysis

import (
	"bytes"
	"runtime"
	"testing"
	"testing/iotest"
)

// TestBoundedMemory: reading 20 MB allocates a small, fixed amount,
// whatever the shape, also on the one-pass path (a reader that cannot seek).
func TestBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("generates 20 MB outputs")
	}
	for _, format := range []string{"claude-stream", "claude-json", "codex-jsonl", "opencode-jsonl", "text"} {
		data := generated(t, format, 20)
		for _, seekable := range []bool{true, false} {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			r := bytes.NewReader(data)
			var err error
			if seekable {
				_, err = Analyze(r, Options{})
			} else {
				_, err = Analyze(iotest.HalfReader(r), Options{})
			}
			runtime.ReadMemStats(&after)
			if err != nil {
				t.Fatal(err)
			}
			if got := after.TotalAlloc - before.TotalAlloc; got > 12<<20 {
				t.Errorf("%s (seekable %v): %d MB allocated for a %d MB output", format, seekable, got>>20, len(data)>>20)
			}
		}
	}
}
