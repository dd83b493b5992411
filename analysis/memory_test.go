package analysis_test

import (
	. "github.com/ralphloop/ralph_loop/analysis"
	"github.com/ralphloop/ralph_loop/drivers"

	"bytes"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"
)

// The memory tests count the bytes the whole process allocates
// (runtime.MemStats), so they are not parallel: Go runs them before the
// parallel tests start. They are skipped under -race: analysis starts no
// goroutine, so the detector has nothing to check in them, and it makes
// their 20 to 64 MB scans so slow that a loaded 2-core machine ran past
// go test's 10-minute limit in them alone.

// skipUnderRace skips a memory test when the tests are built with -race.
func skipUnderRace(t *testing.T) {
	t.Helper()
	if raceEnabled {
		t.Skip("bytes allocated are counted without -race (single goroutine: nothing for the detector)")
	}
}

// TestBoundedMemory: reading 20 MB allocates a small, fixed amount,
// whatever the shape, from a reader or through a Stream (a line at most
// MaxLine).
func TestBoundedMemory(t *testing.T) {
	skipUnderRace(t)
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
				_, err = Analyze(r, Options{Formats: drivers.Formats("")})
			case "one-pass":
				_, err = Analyze(iotest.HalfReader(r), Options{Formats: drivers.Formats("")})
			default:
				s := NewStream(Options{Formats: drivers.Formats("")})
				r.WriteTo(s)
				_, err = s.Finish(Ending{})
			}
			runtime.ReadMemStats(&after)
			if err != nil {
				t.Fatal(err)
			}
			// The Claude JSON result, one 20 MB line, is read as it
			// comes (a long record), not held.
			limit := uint64(12 << 20)
			if got := after.TotalAlloc - before.TotalAlloc; got > limit {
				t.Errorf("%s (%s): %d MB allocated for a %d MB output", format, mode, got>>20, len(data)>>20)
			}
		}
	}
}

// TestLineCap: a line of JSON past LongAt is read as it comes (a long
// record), in bounded memory; a longer line that is not JSON is skipped,
// counted and noted, without being held past MaxLine. The lines around
// them are read as usual, whether the output is read from a reader or
// written to a Stream in pieces.
func TestLineCap(t *testing.T) {
	skipUnderRace(t)
	if testing.Short() {
		t.Skip("writes a 64 MiB line")
	}
	for _, c := range []struct {
		name, open, close string // the long line: open, 4*MaxLine a's, close
		skipped, docs     int
		maxAlloc          uint64
		note              string
	}{
		{"JSON", `{"type":"assistant","message":{"content":[{"type":"text","text":"`, `"}]}}`, 0, 3, 8 << 20, ""},
		{"text", "x", "", 1, 2, 7 * MaxLine / 2, "1 line longer than 16 MiB skipped"},
	} {
		first := `{"type":"system","subtype":"init","session_id":"s1"}` + "\n" + c.open
		last := c.close + "\n" +
			`{"type":"result","result":"done.\n---RALPH_STATUS---\nEXIT_SIGNAL: true\n---END_RALPH_STATUS---","session_id":"s1"}` + "\n"
		// Built in place: one buffer of the output's size, not a copy
		// of 64 MiB per concatenation.
		data := make([]byte, 0, len(first)+4*MaxLine+len(last))
		data = append(appendMany(append(data, first...), 'a', 4*MaxLine), last...)
		longLen := len(c.open) + 4*MaxLine + len(c.close)
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		s := NewStream(Options{Formats: drivers.Formats("claude-code")})
		for rest := data; len(rest) > 0; {
			n := min(len(rest), 32<<10)
			s.Write(rest[:n])
			rest = rest[n:]
		}
		res, _ := s.Finish(Ending{})
		runtime.ReadMemStats(&after)
		if got := after.TotalAlloc - before.TotalAlloc; got > c.maxAlloc {
			t.Errorf("%s: %d MB allocated for a %d MB line", c.name, got>>20, longLen>>20)
		}
		file, err := Analyze(bytes.NewReader(data), Options{Formats: drivers.Formats("claude-code")})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range []Result{res, file} {
			if r.SkippedLines != c.skipped || r.Documents != c.docs || r.SessionID != "s1" || !r.ExitSignal {
				t.Errorf("%s: skipped %d, documents %d, session %q, exit %v; want %d, %d, s1, true", c.name, r.SkippedLines, r.Documents, r.SessionID, r.ExitSignal, c.skipped, c.docs)
			}
			if why := explained(&r); !strings.Contains(why, c.note) {
				t.Errorf("%s: explanation does not note the skipped line:\n%s", c.name, why)
			}
		}
	}
}

// appendMany appends n copies of c to b, copying what it has written
// (no second buffer of n bytes).
func appendMany(b []byte, c byte, n int) []byte {
	start := len(b)
	b = append(b, c)
	for done := 1; done < n; done = len(b) - start {
		b = append(b, b[start:start+min(done, n-done)]...)
	}
	return b
}

// TestLongResult: a Claude JSON result of one line longer than MaxLine
// (an agent that replies with 20 MB) is analysed, in bounded memory: its
// status block gives the tasks and the exit signal, as in a short one.
func TestLongResult(t *testing.T) {
	skipUnderRace(t)
	if testing.Short() {
		t.Skip("writes a 20 MB line")
	}
	text := strings.Repeat(`Line \"quoted\" \\ caf\u00e9 \ud83d\ude00 \u2028 of a long reply.\n`, 20<<20/64) +
		`Done.\n---RALPH_STATUS---\nSTATUS: COMPLETE\nTASKS_COMPLETED_THIS_LOOP: 3\nEXIT_SIGNAL: true\n---END_RALPH_STATUS---\n`
	data := []byte(`{"type":"result","subtype":"success","is_error":false,"result":"` + text + `","session_id":"s-long","usage":{"input_tokens":5,"output_tokens":7}}` + "\n")
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	res, err := Analyze(iotest.HalfReader(bytes.NewReader(data)), Options{Formats: drivers.Formats("claude-code")})
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 8<<20 {
		t.Errorf("%d MB allocated for a %d MB result", got>>20, len(data)>>20)
	}
	if res.SkippedLines != 0 || res.Format != FormatJSONObject || res.TasksCompletedThisLoop != 3 || !res.ExitSignal ||
		res.SessionID != "s-long" || res.Usage == nil || res.Usage.OutputTokens != 7 || !strings.HasPrefix(res.ResultText, "Line \"quoted\" \\ café 😀 \u2028 of") {
		t.Errorf("skipped %d, format %s, tasks %d, exit %v, session %q, usage %+v, text %.40q; want 0, json, 3, true, s-long, 7 output tokens, the reply",
			res.SkippedLines, res.Format, res.TasksCompletedThisLoop, res.ExitSignal, res.SessionID, res.Usage, res.ResultText)
	}
}

// TestHeldDeltas: the text deltas of a stream are held back undecoded,
// within a bound: a stream of deltas and no result record gives its text
// in order, however many there are.
func TestHeldDeltas(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString(`{"type":"system","subtype":"init","session_id":"s1"}` + "\n")
	for i := 0; i < 40000; i++ { // about 6 MB of deltas: past maxHeld
		b.WriteString(`{"type":"stream_event","event":{"type":"content_block_delta","delta":{"type":"text_delta","text":"` + string(rune('a'+i%26)) + `"}},"session_id":"s1"}` + "\n")
	}
	res, err := Analyze(strings.NewReader(b.String()), Options{Formats: drivers.Formats("claude-code")})
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Repeat("abcdefghijklmnopqrstuvwxyz", 40000/26+1)[:40000]
	if res.Format != FormatStreamJSON || res.ResultText != want {
		t.Fatalf("format %s, text of %d bytes (%.40q...); want the %d deltas in order", res.Format, len(res.ResultText), res.ResultText, len(want))
	}
}
