package analysis_test

import (
	. "github.com/ralphloop/ralph_loop/analysis"
	"github.com/ralphloop/ralph_loop/drivers"

	"bytes"
	"strings"
	"sync"
	"testing"

	"github.com/ralphloop/ralph_loop/internal/gen"
)

var (
	genMu    sync.Mutex
	genCache = map[string][]byte{}
)

// generated returns a generated output of about mb megabytes.
func generated(tb testing.TB, format string, mb int) []byte {
	tb.Helper()
	genMu.Lock()
	defer genMu.Unlock()
	key := format + "/" + strings.Repeat("x", mb)
	if b, ok := genCache[key]; ok {
		return b
	}
	var buf bytes.Buffer
	buf.Grow(mb*1e6 + 1<<20) // the generator ends a little past the size
	if err := gen.Write(&buf, format, int64(mb)*1e6, 1); err != nil {
		tb.Fatal(err)
	}
	genCache[key] = buf.Bytes()
	return buf.Bytes()
}

// sizeMB is a benchmark's output size: 50 MB (a Claude JSON result is one
// line of that size, read as a long record).
func sizeMB(string) int { return 50 }

func benchAnalyze(b *testing.B, format, driver string) {
	data := generated(b, format, sizeMB(format))
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		res, err := Analyze(bytes.NewReader(data), Options{Formats: drivers.Formats(driver)})
		if err != nil {
			b.Fatal(err)
		}
		if res.ExitSignal || res.Block == nil || res.SessionID == "" && format != "text" {
			b.Fatalf("unexpected analysis of generated %s: %s", format, explained(&res))
		}
	}
}

func BenchmarkAnalyzeClaudeStream50MB(b *testing.B) { benchAnalyze(b, "claude-stream", "claude-code") }
func BenchmarkAnalyzeCodexJSONL50MB(b *testing.B)   { benchAnalyze(b, "codex-jsonl", "codex") }
func BenchmarkAnalyzeClaudeJSON50MB(b *testing.B)   { benchAnalyze(b, "claude-json", "claude-code") }
func BenchmarkAnalyzeOpenCode50MB(b *testing.B)     { benchAnalyze(b, "opencode-jsonl", "opencode") }
func BenchmarkAnalyzeText50MB(b *testing.B)         { benchAnalyze(b, "text", "copilot") }

// TestGeneratedOutputs checks that each generated format reads back as the
// generator meant it (a small size keeps it quick).
func TestGeneratedOutputs(t *testing.T) {
	t.Parallel()
	for _, format := range gen.Formats {
		t.Run(format, func(t *testing.T) {
			data := generated(t, format, 1)
			res, err := Analyze(bytes.NewReader(data), Options{Formats: drivers.Formats("")})
			if err != nil {
				t.Fatal(err)
			}
			if res.Block == nil || res.Block.Status != "IN_PROGRESS" || !res.Block.ExitSignalFound || res.ExitSignal {
				t.Fatalf("status block not read as written:\n%s", explained(&res))
			}
			want := gen.SessionID
			if format == "opencode-jsonl" {
				want = gen.OpenCodeSessionID
			}
			if format != "text" && res.SessionID != want {
				t.Errorf("session = %q, want %q", res.SessionID, want)
			}
			if format != "text" && format != "claude-json" && res.HasErrors {
				t.Errorf("errors in tool output counted as the agent's: %q", res.ErrorLines)
			}
		})
	}
}

// benchStream is the loop's way: the output written to a Stream in the
// pieces a pipe delivers, then Finish.
func benchStream(b *testing.B, format, driver string) {
	data := generated(b, format, sizeMB(format))
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		s := NewStream(Options{Formats: drivers.Formats(driver)})
		for rest := data; len(rest) > 0; {
			n := min(len(rest), 32<<10)
			s.Write(rest[:n])
			rest = rest[n:]
		}
		res, err := s.Finish(Ending{})
		if err != nil {
			b.Fatal(err)
		}
		if res.ExitSignal || res.Block == nil || res.SessionID == "" && format != "text" {
			b.Fatalf("unexpected analysis of generated %s: %s", format, explained(&res))
		}
	}
}

func BenchmarkStreamClaudeStream50MB(b *testing.B) { benchStream(b, "claude-stream", "claude-code") }
func BenchmarkStreamCodexJSONL50MB(b *testing.B)   { benchStream(b, "codex-jsonl", "codex") }
func BenchmarkStreamClaudeJSON50MB(b *testing.B)   { benchStream(b, "claude-json", "claude-code") }
func BenchmarkStreamText50MB(b *testing.B)         { benchStream(b, "text", "copilot") }
