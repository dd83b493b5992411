package analysis_test

import (
	. "github.com/ralphloop/ralph_loop/analysis"
	"github.com/ralphloop/ralph_loop/drivers"

	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ralphloop/ralph_loop/internal/gen"
)

// streamEndings are the endings whose analyses differ: a success, a failed
// call (usage-limit phrases count) and a timed-out one (they never do).
var streamEndings = []Ending{
	{ExitCode: 0},
	{ExitCode: 1},
	{ExitCode: 1, TimedOut: true},
	{ExitCode: -1, TimedOut: true},
}

// streamDrivers are the drivers an output may come from, the command
// driver (detect) included.
var streamDrivers = []string{"command", "claude-code", "codex", "cursor", "opencode", "copilot"}

// allFields compares every field of a Result, unexported ones too: the
// stream must decide exactly as AnalyzeFile does, not only print the same.
var allFields = cmp.Exporter(func(reflect.Type) bool { return true })

// checkStream analyses the file at path with AnalyzeFile and with a Stream
// written in random pieces, and fails when the Results, the
// .response_analysis bytes or the explanations differ.
func checkStream(t *testing.T, path, driver string, data []byte, opts Options, e Ending, rng *rand.Rand) {
	t.Helper()
	fileOpts := opts
	fileOpts.ExitCode, fileOpts.TimedOut, fileOpts.Now = e.ExitCode, e.TimedOut, e.Now
	want, why, err := AnalyzeFile(path, fileOpts)
	if err != nil {
		t.Fatal(err)
	}
	s := NewStream(opts)
	for rest := data; len(rest) > 0; {
		n := min(len(rest), 1+rng.IntN(1+rng.IntN(4096)))
		if k, err := s.Write(rest[:n]); k != n || err != nil {
			t.Fatalf("Write = %d, %v; want %d, nil", k, err, n)
		}
		rest = rest[n:]
	}
	got, err := s.Finish(e)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got, allFields); diff != "" {
		t.Fatalf("%s (driver %q, ending %+v): stream differs from AnalyzeFile (-file +stream):\n%s", path, driver, e, diff)
	}
	wantRA, err := want.ResponseAnalysis().Marshal()
	if err != nil {
		t.Fatal(err)
	}
	gotRA, err := got.ResponseAnalysis().Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(wantRA, gotRA) {
		t.Fatalf("%s: .response_analysis differs:\nfile:   %s\nstream: %s", path, wantRA, gotRA)
	}
	if diff := cmp.Diff(why, explained(&got)); diff != "" {
		t.Fatalf("%s: explanation differs (-file +stream):\n%s", path, diff)
	}
}

// streamInputs are the outputs the stream is checked on: every fixture,
// small generated outputs of each format, and the shapes the loop's output
// log can take (cut to head and tail, empty).
func streamInputs(t *testing.T) []string {
	var files []string
	for _, dir := range []string{filepath.Join("testdata", "agent-output"), filepath.Join("testdata", "extra"), sharedFixtures} {
		all, _ := filepath.Glob(filepath.Join(dir, "*"))
		for _, f := range all {
			if filepath.Ext(f) != ".md" {
				files = append(files, f)
			}
		}
	}
	if len(files) < 30 {
		t.Fatalf("only %d fixtures found", len(files))
	}
	tmp := t.TempDir()
	add := func(name string, data []byte) {
		p := filepath.Join(tmp, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
	}
	for _, format := range gen.Formats {
		var buf bytes.Buffer
		if err := gen.Write(&buf, format, 200<<10, 1); err != nil {
			t.Fatal(err)
		}
		add("gen-"+format, buf.Bytes())
		b := buf.Bytes()
		cut := append(append(append([]byte(nil), b[:len(b)/3]...), "\n[... 12345 bytes omitted ...]\n"...), b[2*len(b)/3:]...)
		add("cut-"+format, cut)
	}
	add("empty", nil)
	add("blank", []byte("\n\n  \n"))
	add("bom-json", []byte("\xef\xbb\xbf {\"result\":\"done\",\"session_id\":\"s1\"}\n"))
	add("json-then-text", []byte("{\"type\":\"result\",\"result\":\"ok\"}\nError: one\nError: two\nyou hit your usage limit\n"))
	add("array-then-text", []byte("[1,2]\nnot json\nstill not\n5-hour limit reached\n"))
	return files
}

// TestStreamMatchesAnalyzeFile: a Stream written as the bytes arrive
// gives exactly what AnalyzeFile gives for the file, for every agent CLI
// and ending.
func TestStreamMatchesAnalyzeFile(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(14, 2))
	now := time.Date(2026, 11, 24, 23, 30, 0, 0, time.UTC)
	for _, path := range streamInputs(t) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, driver := range streamDrivers {
			for _, e := range streamEndings {
				e.Now = now
				opts := Options{Formats: drivers.Formats(driver), Loop: 7, OutputFile: ".ralph/logs/claude_output.log",
					PreviousOutputLength: 4000, PreviousErrors: [][]string{{"Error: one", "Error: two"}},
					FilesModified: 2,
				}
				checkStream(t, path, driver, data, opts, e, rng)
			}
		}
	}
}

// TestStreamClose: a stream closed and never finished ends its reader; a
// write after the end is dropped, not failed.
func TestStreamClose(t *testing.T) {
	t.Parallel()
	s := NewStream(Options{Formats: drivers.Formats("")})
	s.Write([]byte("partial"))
	s.Close()
	if n, err := s.Write([]byte("late")); n != 4 || err != nil {
		t.Fatalf("Write after Close = %d, %v", n, err)
	}
	res, err := s.Finish(Ending{})
	if err != nil || res.OutputBytes != int64(len("partial")) {
		t.Fatalf("Finish = %d bytes, %v; want %d", res.OutputBytes, err, len("partial"))
	}
}

// FuzzStream: on any input, any agent CLI and any ending, the stream and
// AnalyzeFile agree.
func FuzzStream(f *testing.F) {
	seedFuzz(f, "*")
	f.Add([]byte("{\"type\":\"result\"}\n{bad\n"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(dir, "out.log")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		seed := uint64(len(data))
		for _, b := range data[:min(len(data), 8)] {
			seed = seed<<8 | uint64(b)
		}
		rng := rand.New(rand.NewPCG(seed, 1))
		driver := streamDrivers[rng.IntN(len(streamDrivers))]
		e := streamEndings[rng.IntN(len(streamEndings))]
		checkStream(t, path, driver, data, Options{Formats: drivers.Formats(driver), OutputFile: path, PreviousOutputLength: 100}, e, rng)
	})
}

// TestStreamFinishAgain: Finish called again with another ending gives
// what a reading with that ending gives (--analyze reads its file once for
// the success and the failed-call views).
func TestStreamFinishAgain(t *testing.T) {
	t.Parallel()
	for _, path := range streamInputs(t) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		s := NewStream(Options{Formats: drivers.Formats("")})
		s.Write(data)
		s.Finish(Ending{})
		got, _ := s.Finish(Ending{ExitCode: 1})
		want, _, err := AnalyzeFile(path, Options{Formats: drivers.Formats(""), ExitCode: 1, OutputFile: ""})
		if err != nil {
			t.Fatal(err)
		}
		want.OutputFile = ""
		if diff := cmp.Diff(want, got, allFields); diff != "" {
			t.Fatalf("%s: a second Finish differs (-one reading +again):\n%s", path, diff)
		}
	}
}
