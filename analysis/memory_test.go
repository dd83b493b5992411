package analysis_test

import (
	. "github.com/ralphloop/ralph_loop/analysis"
	"github.com/ralphloop/ralph_loop/drivers"
	"github.com/ralphloop/ralph_loop/internal/explain"

	"bytes"
	"runtime"
	"strings"
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
				_, err = Analyze(r, Options{Formats: drivers.Formats()})
			case "one-pass":
				_, err = Analyze(iotest.HalfReader(r), Options{Formats: drivers.Formats()})
			default:
				s := NewStream(Options{Formats: drivers.Formats()})
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

// TestLineCap: a line longer than MaxLine is skipped, counted and noted,
// without being held; the lines around it are read as usual, whether the
// output is read from a reader or written to a Stream in pieces.
func TestLineCap(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 64 MiB line")
	}
	long := `{"type":"assistant","message":{"content":[{"type":"text","text":"` + strings.Repeat("a", 4*MaxLine) + `"}]}}`
	out := `{"type":"system","subtype":"init","session_id":"s1"}` + "\n" + long + "\n" +
		`{"type":"result","result":"done.\n---RALPH_STATUS---\nEXIT_SIGNAL: true\n---END_RALPH_STATUS---","session_id":"s1"}` + "\n"
	data := []byte(out)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	s := NewStream(Options{Formats: drivers.Formats(), Family: FamilyClaude})
	for rest := data; len(rest) > 0; {
		n := min(len(rest), 32<<10)
		s.Write(rest[:n])
		rest = rest[n:]
	}
	res, _ := s.Finish(Ending{})
	runtime.ReadMemStats(&after)
	// The line is held up to the cap (a growing buffer), never past it.
	if got := after.TotalAlloc - before.TotalAlloc; got > 7*MaxLine/2 {
		t.Errorf("%d MB allocated for a %d MB line", got>>20, len(long)>>20)
	}
	file, err := Analyze(bytes.NewReader(data), Options{Formats: drivers.Formats(), Family: FamilyClaude})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []Result{res, file} {
		if r.SkippedLines != 1 || r.Documents != 2 || r.SessionID != "s1" || !r.ExitSignal {
			t.Errorf("skipped %d, documents %d, session %q, exit %v; want 1, 2, s1, true", r.SkippedLines, r.Documents, r.SessionID, r.ExitSignal)
		}
		if why := explain.Of(&r).String(); !strings.Contains(why, "1 line longer than 16 MiB skipped") {
			t.Errorf("explanation does not note the skipped line:\n%s", why)
		}
	}
}

// TestHeldDeltas: the text deltas of a stream are held back undecoded,
// within a bound: a stream of deltas and no result record gives its text
// in order, however many there are.
func TestHeldDeltas(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"type":"system","subtype":"init","session_id":"s1"}` + "\n")
	for i := 0; i < 40000; i++ { // about 6 MB of deltas: past maxHeld
		b.WriteString(`{"type":"stream_event","event":{"type":"content_block_delta","delta":{"type":"text_delta","text":"` + string(rune('a'+i%26)) + `"}},"session_id":"s1"}` + "\n")
	}
	res, err := Analyze(strings.NewReader(b.String()), Options{Formats: drivers.Formats(), Family: FamilyClaude})
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Repeat("abcdefghijklmnopqrstuvwxyz", 40000/26+1)[:40000]
	if res.Format != FormatStreamJSON || res.ResultText != want {
		t.Fatalf("format %s, text of %d bytes (%.40q...); want the %d deltas in order", res.Format, len(res.ResultText), res.ResultText, len(want))
	}
}
