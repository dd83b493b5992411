//go:build unix

package gates

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/ralphloop/ralph_loop/internal/ralphdir"
)

var stamp = time.Date(2026, 11, 22, 2, 5, 10, 0, time.FixedZone("CET", 3600))

func cfg(t *testing.T, c Config) Config {
	t.Helper()
	if c.Dir == "" {
		c.Dir = t.TempDir()
	}
	if c.Timeout == 0 {
		c.Timeout = 10 * time.Second
	}
	return c
}

func TestRunSkipped(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		cfg  Config
		in   Input
	}{
		{"nothing configured", Config{Mode: ModeBlock}, Input{Loop: 1, HaveAnalysis: true, TestsStatus: "FAILING"}},
		{"completion only, not completing", Config{TestCommand: "exit 1", OnCompletionOnly: true, Mode: ModeBlock}, Input{Loop: 1, HaveAnalysis: true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Run(context.Background(), cfg(t, tc.cfg), tc.in, stamp)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(Decision{}, d); diff != "" {
				t.Fatalf("decision (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRunCompletionOnlyWhenCompleting(t *testing.T) {
	t.Parallel()
	d, err := Run(context.Background(), cfg(t, Config{TestCommand: "exit 1", OnCompletionOnly: true, Mode: ModeBlock}), Input{Loop: 4, ExitSignal: true, HaveAnalysis: true, TestsStatus: "PASSING"}, stamp)
	if err != nil {
		t.Fatal(err)
	}
	if !d.Ran || !d.Blocked || d.ResultCode != 1 || d.Results.TestGate.Status != StatusFail {
		t.Fatalf("decision = %+v", d)
	}
}

func TestTestGate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		command string
		in      Input
		want    TestGate
	}{
		{"no analysis skips even with a command", "exit 1", Input{}, TestGate{Status: statusSkip}},
		{"unknown without command skips", "", Input{HaveAnalysis: true}, TestGate{Status: statusSkip, TestsStatusReported: "UNKNOWN"}},
		{"explicit UNKNOWN skips", "", Input{HaveAnalysis: true, TestsStatus: "UNKNOWN"}, TestGate{Status: statusSkip, TestsStatusReported: "UNKNOWN"}},
		{"passing without command trusts the agent", "", Input{HaveAnalysis: true, TestsStatus: "PASSING"}, TestGate{Status: StatusPass, TestsStatusReported: "PASSING"}},
		{"failing without command fails", "", Input{HaveAnalysis: true, TestsStatus: "FAILING"}, TestGate{Status: StatusFail, TestsStatusReported: "FAILING"}},
		{"other values pass", "", Input{HaveAnalysis: true, TestsStatus: "NOT_RUN"}, TestGate{Status: StatusPass, TestsStatusReported: "NOT_RUN"}},
		{"command overrules a FAILING report", "echo all good", Input{HaveAnalysis: true, TestsStatus: "FAILING"}, TestGate{Status: StatusPass, TestsStatusReported: "FAILING", Verified: true, Output: "all good"}},
		{"command overrules a PASSING report", "echo 'FAIL auth' >&2; exit 1", Input{HaveAnalysis: true, TestsStatus: "PASSING"}, TestGate{Status: StatusFail, TestsStatusReported: "PASSING", Verified: true, Output: "FAIL auth"}},
		{"command runs when the report is unknown", "printf 'a\\nb\\n\\n'", Input{HaveAnalysis: true}, TestGate{Status: StatusPass, TestsStatusReported: "UNKNOWN", Verified: true, Output: "a\nb"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := cfg(t, Config{TestCommand: tc.command, Gates: "true", Mode: ModeWarn})
			d, err := Run(context.Background(), c, tc.in, stamp)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, d.Results.TestGate); diff != "" {
				t.Fatalf("test gate (-want +got):\n%s", diff)
			}
			wantOverall := StatusPass
			if tc.want.Status == StatusFail {
				wantOverall = StatusFail
			}
			if d.OverallStatus != wantOverall {
				t.Fatalf("overall = %q, want %q", d.OverallStatus, wantOverall)
			}
		})
	}
}

func TestCustomGates(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	c := cfg(t, Config{Gates: " echo one ;; pwd; echo lint error >&2; exit 3 ; kill -TERM $$ ;  ", Mode: ModeWarn, Dir: dir})
	if diff := cmp.Diff([]string{"echo one", "pwd", "echo lint error >&2", "exit 3", "kill -TERM $$"}, c.commands()); diff != "" {
		t.Fatalf("Commands (-want +got):\n%s", diff)
	}
	d, err := Run(context.Background(), c, Input{Loop: 2, HaveAnalysis: true, TestsStatus: "PASSING"}, stamp)
	if err != nil {
		t.Fatal(err)
	}
	realDir, _ := filepath.EvalSymlinks(dir)
	want := []CustomGate{
		{Command: "echo one", Status: StatusPass, Output: "one"},
		{Command: "pwd", Status: StatusPass, Output: realDir},
		{Command: "echo lint error >&2", Status: StatusPass, Output: "lint error"},
		{Command: "exit 3", Status: StatusFail, ExitCode: 3},
		{Command: "kill -TERM $$", Status: StatusFail, ExitCode: 143},
	}
	got := d.Results.CustomGates
	for i := range got {
		got[i].DurationSeconds = 0 // wall time; checked in TestTimeout
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("custom gates (-want +got):\n%s", diff)
	}
	if d.OverallStatus != StatusFail || d.ResultCode != 0 || d.Blocked || d.WithholdProgress || d.Feedback != "" {
		t.Fatalf("warn mode decision = %+v", d)
	}
	if d.Warning != "Quality gate failure (mode=warn): test_gate=pass, custom_failures=2" {
		t.Fatalf("warning = %q", d.Warning)
	}
}

func TestOutputIsCutTo500Characters(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	script(t, dir, "verbose-lint", "for i in $(seq 1 200); do echo \"lint warning $i: ünused\"; done; exit 1")
	c := cfg(t, Config{Gates: "./verbose-lint", Mode: ModeBlock, Dir: dir})
	d, err := Run(context.Background(), c, Input{Loop: 1, HaveAnalysis: true, TestsStatus: "PASSING"}, stamp)
	if err != nil {
		t.Fatal(err)
	}
	out := d.Results.CustomGates[0].Output
	if n := len([]rune(out)); n != outputMax {
		t.Fatalf("output has %d characters, want %d", n, outputMax)
	}
	if !strings.HasPrefix(out, "lint warning 1: ünused\nlint warning 2:") {
		t.Fatalf("output = %q", out[:60])
	}
}

func TestCaptureTrailingNewlines(t *testing.T) {
	t.Parallel()
	c := &capture{limit: 4}
	c.Write([]byte("ab\n\n"))
	c.Write([]byte("\n\n"))
	if got := c.text(10); got != "ab" {
		t.Fatalf("only newlines past the limit: %q", got)
	}
	c = &capture{limit: 4}
	c.Write([]byte("ab\n\nx"))
	if got := c.text(10); got != "ab\n\n" {
		t.Fatalf("text past the limit: %q", got)
	}
}

func script(t *testing.T, dir, name, body string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/usr/bin/env bash\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
}

func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// state is the field after the ")" that closes the command name
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || !strings.HasPrefix(s[i+1:], " Z")
}

func TestTimeoutKillsTheGroup(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "child.pid")
	// A helper that ignores TERM, then the shell stops itself: only the
	// group SIGKILL after the grace period ends both. The helper would
	// sleep 10 minutes, so every bound below is far from what a gate that
	// waited for it would take.
	script(t, dir, "slow-lint", "trap '' TERM; (trap '' TERM; sleep 600) & echo $! > child.pid; kill -STOP $$")
	c := cfg(t, Config{Gates: "./slow-lint", Mode: modeCircuitBreaker, Dir: dir, Timeout: 500 * time.Millisecond, Grace: 100 * time.Millisecond})
	var d Decision
	// On a busy machine the timeout may stop the shell before it started
	// its helper (or wrote its pid): that run proves nothing about the
	// helper, so run again.
	for try := 1; ; try++ {
		start := time.Now()
		var err error
		d, err = Run(context.Background(), c, Input{Loop: 3, HaveAnalysis: true, TestsStatus: "PASSING"}, stamp)
		if err != nil {
			t.Fatal(err)
		}
		if el := time.Since(start); el > 30*time.Second {
			t.Fatalf("run took %v: it waited for the helper", el)
		}
		if b, _ := os.ReadFile(pidFile); bytes.HasSuffix(b, []byte("\n")) || try == 10 {
			break
		}
	}
	g := d.Results.CustomGates[0]
	if !g.TimedOut || g.ExitCode != timeoutExitCode || g.Status != StatusFail || g.DurationSeconds > 30 {
		t.Fatalf("gate = %+v", g)
	}
	if !d.WithholdProgress || d.ResultCode != 2 || d.Blocked {
		t.Fatalf("circuit-breaker decision = %+v", d)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	deadline := time.Now().Add(30 * time.Second)
	for alive(pid) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if alive(pid) {
		t.Fatalf("helper %d outlived the gate", pid)
	}
}

// A helper that left the gate's process group (setsid) is stopped once
// the gate is done, like the agent's: it carries the call's token.
func TestHelperInNewSessionIsStopped(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	script(t, dir, "daemon-lint", `setsid bash -c 'echo $$ > helper.tmp && mv helper.tmp helper.pid && exec sleep 30' >/dev/null 2>&1 </dev/null &
while [ ! -s helper.pid ]; do sleep 0.01; done
echo linted`)
	c := cfg(t, Config{Gates: "./daemon-lint", Mode: ModeWarn, Dir: dir, Grace: 100 * time.Millisecond})
	d, err := Run(context.Background(), c, Input{Loop: 1, HaveAnalysis: true, TestsStatus: "PASSING"}, stamp)
	if err != nil {
		t.Fatal(err)
	}
	if g := d.Results.CustomGates[0]; g.Status != StatusPass || g.Output != "linted" {
		t.Fatalf("gate = %+v", g)
	}
	b, err := os.ReadFile(filepath.Join(dir, "helper.pid"))
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	// The helper sleeps 30 s: a bound of 20 s is far from both a busy
	// machine's delay and a helper left running.
	deadline := time.Now().Add(20 * time.Second)
	for alive(pid) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if alive(pid) {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Fatalf("helper %d in its own session outlived the gate", pid)
	}
}

func TestCancelIsAnError(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancelCause(context.Background())
	stop := errors.New("user interrupt")
	time.AfterFunc(50*time.Millisecond, func() { cancel(stop) })
	c := cfg(t, Config{TestCommand: "kill -STOP $$", Mode: ModeBlock, Grace: 50 * time.Millisecond})
	_, err := Run(ctx, c, Input{Loop: 1, HaveAnalysis: true}, stamp)
	if !errors.Is(err, stop) {
		t.Fatalf("err = %v, want the cancel cause", err)
	}
	_, err = Run(ctx, c, Input{Loop: 1, HaveAnalysis: true}, stamp)
	if !errors.Is(err, stop) {
		t.Fatalf("already cancelled: err = %v", err)
	}
}

func TestUnstartableCommandFails(t *testing.T) {
	t.Parallel()
	c := Config{TestCommand: "true", Mode: ModeBlock, Dir: filepath.Join(t.TempDir(), "missing")}
	d, err := Run(context.Background(), c, Input{Loop: 1, HaveAnalysis: true}, stamp)
	if err != nil {
		t.Fatal(err)
	}
	if d.Results.TestGate.Status != StatusFail || d.Results.TestGate.Output == "" || !d.Blocked {
		t.Fatalf("decision = %+v", d)
	}
}

func TestDecideModes(t *testing.T) {
	t.Parallel()
	failing := func(mode string) *Results {
		return &Results{Mode: mode, OverallStatus: StatusFail, TestGate: TestGate{Status: StatusFail, Output: "boom"}, CustomGates: []CustomGate{{Command: "npm run lint --fix", Status: StatusFail}}}
	}
	tests := []struct {
		name string
		r    *Results
		want Decision
	}{
		{"pass in block mode", &Results{Mode: ModeBlock, OverallStatus: StatusPass, TestGate: TestGate{Status: StatusPass}}, Decision{Ran: true, OverallStatus: StatusPass}},
		{"fail in warn mode", failing(ModeWarn), Decision{Ran: true, OverallStatus: StatusFail, Warning: "Quality gate failure (mode=warn): test_gate=fail, custom_failures=1"}},
		{"fail in block mode", failing(ModeBlock), Decision{Ran: true, OverallStatus: StatusFail, Blocked: true, ResultCode: 1, Feedback: "TESTS FAILING: boom. QG fail: npm run. ", Warning: "Quality gate failure (mode=block): test_gate=fail, custom_failures=1"}},
		{"fail in circuit-breaker mode", failing(modeCircuitBreaker), Decision{Ran: true, OverallStatus: StatusFail, WithholdProgress: true, ResultCode: 2, Feedback: "TESTS FAILING: boom. QG fail: npm run. ", Warning: "Quality gate failure (mode=circuit-breaker): test_gate=fail, custom_failures=1"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := decide(tc.r)
			got.Results = nil
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Fatalf("decision (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFeedback(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("FAIL test_1 assertion error in handler function ", 10)
	tests := []struct {
		name string
		r    *Results
		want string
	}{
		{"no results", nil, ""},
		{"pass", &Results{OverallStatus: StatusPass, Mode: ModeBlock}, ""},
		{"warn mode", &Results{OverallStatus: StatusFail, Mode: ModeWarn, TestGate: TestGate{Status: StatusFail}}, ""},
		{"missing mode reads as warn", &Results{OverallStatus: StatusFail, TestGate: TestGate{Status: StatusFail}}, ""},
		{"test output", &Results{OverallStatus: StatusFail, Mode: ModeBlock, TestGate: TestGate{Status: StatusFail, Output: "FAIL src/auth.test.ts > rejects invalid token"}}, "TESTS FAILING: FAIL src/auth.test.ts > rejects invalid token. "},
		{"bare message", &Results{OverallStatus: StatusFail, Mode: modeCircuitBreaker, TestGate: TestGate{Status: StatusFail}}, "TESTS FAILING. "},
		{"sanitised", &Results{OverallStatus: StatusFail, Mode: ModeBlock, TestGate: TestGate{Status: StatusFail, Output: "  \x1b[31mFAIL\x1b[0m src/auth.test.ts\n  ● rejects invalid token\r\n\n    \tTypeError: boom  "}}, "TESTS FAILING: FAIL src/auth.test.ts ● rejects invalid token TypeError: boom. "},
		{"no NUL for argv", &Results{OverallStatus: StatusFail, Mode: ModeBlock, TestGate: TestGate{Status: StatusFail, Output: "bin\x00ary\x7f out"}}, "TESTS FAILING: bin ary out. "},
		{"cut to 150", &Results{OverallStatus: StatusFail, Mode: ModeBlock, TestGate: TestGate{Status: StatusFail, Output: long}}, "TESTS FAILING: " + long[:150] + ". "},
		{"custom gates only", &Results{OverallStatus: StatusFail, Mode: ModeBlock, TestGate: TestGate{Status: statusSkip}, CustomGates: []CustomGate{{Command: "lint", Status: StatusFail}, {Command: "go vet ./...", Status: StatusPass}, {Command: "npm  run   typecheck", Status: StatusFail}}}, "QG fail: lint, npm run. "},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Feedback(tc.r); got != tc.want {
				t.Fatalf("Feedback = %q, want %q", got, tc.want)
			}
		})
	}
}

// The shape of .quality_gate_results, as the state store writes it
// (ralphdir's JSON) and reads it back (Decode).
func TestResultsShape(t *testing.T) {
	t.Parallel()
	dec, err := Run(context.Background(), cfg(t, Config{TestCommand: "echo ok", Gates: "exit 2", Mode: ModeBlock}), Input{Loop: 7, HaveAnalysis: true, TestsStatus: "PASSING"}, stamp)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := ralphdir.MarshalJSON(dec.Results)
	if err != nil {
		t.Fatal(err)
	}
	want := `{
  "timestamp": "2026-11-22T01:05:10+00:00",
  "loop_number": 7,
  "test_gate": {
    "status": "pass",
    "tests_status_reported": "PASSING",
    "verified": true,
    "output": "ok"
  },
  "custom_gates": [
    {
      "command": "exit 2",
      "status": "fail",
      "exit_code": 2,
      "output": "",
      "duration_seconds": 0,
      "timed_out": false
    }
  ],
  "overall_status": "fail",
  "mode": "block"
}
`
	if diff := cmp.Diff(want, string(raw)); diff != "" {
		t.Fatalf("file (-want +got):\n%s", diff)
	}
	r, err := Decode(raw)
	if err != nil || r == nil {
		t.Fatalf("Decode = %v, %v", r, err)
	}
	if diff := cmp.Diff(dec.Results, r); diff != "" {
		t.Fatalf("round trip (-want +got):\n%s", diff)
	}
	if r.OverallStatus != "fail" || r.Mode != "block" {
		t.Fatalf("overall_status %q, mode %q; want fail, block", r.OverallStatus, r.Mode)
	}
	for _, bad := range []string{"{oops", "{}", "[]"} {
		if r, err := Decode([]byte(bad)); r != nil || err == nil {
			t.Errorf("Decode(%s) = %v, %v; want an error", bad, r, err)
		}
	}
}

// A failed gate names its command, exit code and the end of its output,
// and the log gets each command's whole output between a header and its
// exit code.
func TestFailuresAndLog(t *testing.T) {
	t.Parallel()
	var log strings.Builder
	c := cfg(t, Config{
		TestCommand: "seq 1 2000; echo 'FAIL: 3 tests failed'; exit 2",
		Gates:       "true; echo lint broken >&2 && exit 7",
		Mode:        ModeBlock,
		Log:         &log,
	})
	d, err := Run(context.Background(), c, Input{Loop: 3, HaveAnalysis: true, TestsStatus: "PASSING"}, stamp)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Failures) != 2 {
		t.Fatalf("failures = %+v", d.Failures)
	}
	f := d.Failures[0]
	if f.Gate != GateTest || f.Command != c.TestCommand || f.ExitCode != 2 || f.TimedOut {
		t.Errorf("test gate failure = %+v", f)
	}
	if !strings.HasSuffix(f.Tail, "2000\nFAIL: 3 tests failed") || len(f.Tail) > tailMax || strings.HasPrefix(f.Tail, "1\n") {
		t.Errorf("tail = %q", f.Tail)
	}
	if g := d.Failures[1]; g.Gate != GateQualityGate || g.Command != "echo lint broken >&2 && exit 7" || g.ExitCode != 7 || g.Tail != "lint broken" {
		t.Errorf("custom gate failure = %+v", g)
	}
	for _, want := range []string{"=== " + c.TestCommand + " ===\n1\n2\n", "FAIL: 3 tests failed\n\n=== exit 2 ===\n", "=== true ===\n\n=== exit 0 ===\n", "lint broken\n\n=== exit 7 ===\n"} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, log.String()[max(0, log.Len()-400):])
		}
	}
	if !strings.Contains(log.String(), "\n1000\n") {
		t.Error("the log does not hold the whole output")
	}

	d, err = Run(context.Background(), cfg(t, Config{Gates: "true", Mode: ModeBlock}), Input{Loop: 3, HaveAnalysis: true, TestsStatus: "FAILING"}, stamp)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]Failure{{Gate: GateReported}}, d.Failures); diff != "" {
		t.Errorf("a FAILING report (-want +got):\n%s", diff)
	}
}

func TestTail(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"ok\n\n", "ok"},
		{"\x1b[31mFAIL\x1b[0m x\x00y\r\n", "FAIL x y"},
		{strings.Repeat("a", tailMax) + "\nlast", "last"},
		{strings.Repeat("é", tailMax+5), strings.Repeat("é", tailMax)},
	} {
		if got := tail(tc.in); got != tc.want {
			t.Errorf("Tail(%.20q) = %.40q, want %.40q", tc.in, got, tc.want)
		}
	}
}
