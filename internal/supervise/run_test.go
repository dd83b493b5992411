//go:build unix

package supervise

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestExitCodes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		args       []string
		wantCode   int
		wantStdout string
		wantStderr string
	}{
		{"zero", []string{"exit", "0", "out", "err"}, 0, "out", "err"},
		{"three", []string{"exit", "3", "", "boom"}, 3, "", "boom"},
		{"255", []string{"exit", "255"}, 255, "", ""},
		{"killed by a signal it sent itself", []string{"selfkill"}, 137, "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			got := Run(context.Background(), helperCmd(t, tc.args...), Options{Stdout: &stdout, Stderr: &stderr})
			if got.Reason != Exited || got.ExitCode != tc.wantCode || got.Err != nil {
				t.Errorf("Run = %+v, want Exited with code %d and no error", got, tc.wantCode)
			}
			if stdout.String() != tc.wantStdout || stderr.String() != tc.wantStderr {
				t.Errorf("stdout %q stderr %q, want %q and %q", stdout.String(), stderr.String(), tc.wantStdout, tc.wantStderr)
			}
		})
	}
}

// TestTimeoutKillsGroupIgnoringTerm: at the timeout the group gets
// SIGTERM; a leader that ignores it gets the grace, then SIGKILL, and its
// grandchild goes too. The timeout passes on a clock the test moves, once
// the helper ignores SIGTERM; the grace is real.
func TestTimeoutKillsGroupIgnoringTerm(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ready, grandchild := filepath.Join(dir, "ready"), filepath.Join(dir, "grandchild")
	const timeout, grace = 300 * time.Millisecond, 200 * time.Millisecond
	clk := newManualClock()
	cmd := helperCmd(t, "ignore-term", ready, grandchild)
	done := make(chan Outcome, 1)
	go func() { done <- Run(context.Background(), cmd, Options{Timeout: timeout, Grace: grace, clock: clk}) }()
	leader, child := waitFile(t, ready), waitFile(t, grandchild)
	clk.awaitPending(t, 1)
	stopped := time.Now()
	clk.Advance(timeout)
	got := <-done
	if got.Reason != TimedOut || got.ExitCode != 124 || !errors.Is(got.Err, errTimeout) || got.Duration != timeout {
		t.Errorf("Run = %+v, want TimedOut, code 124, ErrTimeout after %s", got, timeout)
	}
	if took := time.Since(stopped); took < grace {
		t.Errorf("returned %s after the timeout, before the grace %s: the TERM-ignoring leader got no grace", took, grace)
	} else if took > grace+5*time.Second {
		t.Errorf("returned %s after the timeout", took)
	}
	assertGone(t, leader)
	assertGone(t, child)
}

func TestOrphanHoldingPipeIsKilled(t *testing.T) {
	t.Parallel()
	pidFile := filepath.Join(t.TempDir(), "grandchild")
	var stdout bytes.Buffer
	const grace = 5 * time.Second
	got := Run(context.Background(), helperCmd(t, "orphan", pidFile), Options{Grace: grace, Stdout: &stdout})
	if got.Reason != Exited || got.ExitCode != 0 || got.Err != nil {
		t.Errorf("Run = %+v, want Exited 0", got)
	}
	if got.Duration >= grace {
		t.Errorf("Run took %s: it waited for the orphan instead of sweeping the group", got.Duration)
	}
	if !strings.Contains(stdout.String(), "leader done") {
		t.Errorf("stdout %q lacks the leader's output", stdout.String())
	}
	assertGone(t, waitFile(t, pidFile))
}

// TestInactivity: a command silent for Inactivity is stopped, at the
// limit and not before (on a clock the test moves: the helper's start,
// however slow, takes none of it).
func TestInactivity(t *testing.T) {
	t.Parallel()
	ready := filepath.Join(t.TempDir(), "ready")
	clk := newManualClock()
	var stdout syncBuffer
	const limit = 3 * time.Second
	cmd := helperCmd(t, "block", ready)
	done := make(chan Outcome, 1)
	go func() {
		done <- Run(context.Background(), cmd, Options{Inactivity: limit, Timeout: time.Minute, Grace: time.Second, Stdout: &stdout, clock: clk})
	}()
	pid := waitFile(t, ready) // it printed its line and blocks
	stdout.await(t, "hello\n")
	clk.awaitPending(t, 2) // the timeout and the inactivity timer
	clk.Advance(limit - time.Millisecond)
	select {
	case got := <-done:
		t.Fatalf("Run = %+v before the limit", got)
	default:
	}
	clk.Advance(time.Millisecond)
	got := <-done
	if got.Reason != Inactive || !errors.Is(got.Err, errInactive) || got.ExitCode != 143 {
		t.Errorf("Run = %+v, want Inactive, errInactive, code 143 (SIGTERM)", got)
	}
	if got.Duration != limit {
		t.Errorf("stopped after %s, want the %s limit", got.Duration, limit)
	}
	if stdout.String() != "hello\n" {
		t.Errorf("stdout = %q, want the output before the stop", stdout.String())
	}
	assertGone(t, pid)
}

// TestOutputKeepsInactivityAway: a command that prints a line every 0.6
// of the limit runs longer than the limit in all and is never stopped:
// each line starts the silence over.
func TestOutputKeepsInactivityAway(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	clk := newManualClock()
	var stdout syncBuffer
	const limit = 1500 * time.Millisecond
	cmd := helperCmd(t, "lines", dir, "3")
	done := make(chan Outcome, 1)
	go func() {
		done <- Run(context.Background(), cmd, Options{Inactivity: limit, Stdout: &stdout, clock: clk})
	}()
	clk.awaitPending(t, 1)
	for i := 1; i <= 3; i++ {
		clk.Advance(limit * 6 / 10) // from the second on, the timer fires and is armed again
		clk.awaitPending(t, 1)
		if err := os.WriteFile(filepath.Join(dir, strconv.Itoa(i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		stdout.await(t, fmt.Sprintf("line %d\n", i))
	}
	got := <-done
	if got.Reason != Exited || got.ExitCode != 0 || got.Duration <= limit {
		t.Errorf("Run = %+v, want Exited 0 after more than %s", got, limit)
	}
}

func TestCancel(t *testing.T) {
	t.Parallel()
	ready := filepath.Join(t.TempDir(), "ready")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		waitFile(t, ready)
		cancel()
	}()
	got := Run(ctx, helperCmd(t, "block", ready), Options{Timeout: time.Minute, Grace: time.Second})
	if got.Reason != Canceled || !errors.Is(got.Err, context.Canceled) || got.ExitCode != 143 {
		t.Errorf("Run = %+v, want Canceled, context.Canceled, code 143", got)
	}
	assertGone(t, waitFile(t, ready))
}

func TestCanceledBeforeStart(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	got := Run(ctx, helperCmd(t, "exit", "0"), Options{})
	if got.Reason != Canceled || got.ExitCode != -1 || !errors.Is(got.Err, context.Canceled) {
		t.Errorf("Run = %+v, want Canceled with code -1", got)
	}
}

func TestStartFailed(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		cmd      Command
		wantCode int
		wantErr  string
	}{
		{"not in PATH", Command{Argv: []string{"no-such-agent-cli-xyz"}}, 127, "start no-such-agent-cli-xyz: executable file not found in $PATH"},
		{"missing path", Command{Argv: []string{"/nonexistent/agent"}}, 127, "start /nonexistent/agent: no such file or directory"},
		{"not executable", Command{Argv: []string{os.DevNull}}, 126, "start /dev/null: permission denied"},
		{"missing dir", Command{Argv: []string{"/bin/sh", "-c", "true"}, Dir: "/nonexistent-dir"}, 126, "start /bin/sh: working directory /nonexistent-dir: no such file or directory"},
		{"empty", Command{}, 127, "start agent: empty command"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := Run(context.Background(), tc.cmd, Options{})
			if got.Reason != StartFailed || got.ExitCode != tc.wantCode || got.Err == nil {
				t.Fatalf("Run = %+v, want StartFailed with code %d", got, tc.wantCode)
			}
			if msg := got.Err.Error(); !strings.HasPrefix(msg, tc.wantErr) || strings.Contains(msg, "\n") {
				t.Errorf("error %q, want one line starting %q", msg, tc.wantErr)
			}
		})
	}
}

func TestStdin(t *testing.T) {
	t.Parallel()
	t.Run("delivered", func(t *testing.T) {
		t.Parallel()
		in := strings.Repeat("prompt line\n", 20000) // larger than a pipe buffer
		var stdout bytes.Buffer
		got := Run(context.Background(), helperCmd(t, "cat").withStdin(in), Options{Stdout: &stdout})
		if got.Reason != Exited || got.ExitCode != 0 || stdout.String() != in {
			t.Errorf("Run = %+v, stdout %d bytes, want Exited 0 echoing %d bytes", got, stdout.Len(), len(in))
		}
	})
	t.Run("devnull by default", func(t *testing.T) {
		t.Parallel()
		var stdout bytes.Buffer
		Run(context.Background(), helperCmd(t, "stdin-is-devnull"), Options{Stdout: &stdout})
		if stdout.String() != "true" {
			t.Errorf("stdin is /dev/null: %q, want true", stdout.String())
		}
	})
}

func (c Command) withStdin(s string) Command { c.Stdin = s; return c }

func TestHugeLine(t *testing.T) {
	t.Parallel()
	const n = 8 << 20
	var stdout, stderr bytes.Buffer
	got := Run(context.Background(), helperCmd(t, "bigline", strconv.Itoa(n)), Options{Stdout: &stdout, Stderr: &stderr})
	if got.Reason != Exited || got.ExitCode != 0 {
		t.Fatalf("Run = %+v", got)
	}
	if want := strings.Repeat("x", n) + "\n"; stdout.String() != want {
		t.Errorf("stdout is %d bytes, want one line of %d", stdout.Len(), len(want))
	}
	if stderr.String() != "end" {
		t.Errorf("stderr = %q, want end", stderr.String())
	}
}

func TestSharedWriter(t *testing.T) {
	t.Parallel()
	const n = 1 << 20
	var out bytes.Buffer // not safe for concurrent use: Run must serialise
	got := Run(context.Background(), helperCmd(t, "bigline", strconv.Itoa(n)), Options{Stdout: &out, Stderr: &out})
	if got.Reason != Exited || got.ExitCode != 0 {
		t.Fatalf("Run = %+v", got)
	}
	s := out.String()
	if strings.Count(s, "x") != n || strings.Count(s, "end") != 1 || len(s) != n+4 {
		t.Errorf("shared output is %d bytes, want %d x's, a newline and end", len(s), n)
	}
}

// TestCombinedKeepsOrder: with Combined, stdout and stderr share one pipe
// as 2>&1 does, so lines written alternately to each arrive in order.
func TestCombinedKeepsOrder(t *testing.T) {
	t.Parallel()
	const n = 2000
	var out bytes.Buffer
	got := Run(context.Background(), helperCmd(t, "interleave", strconv.Itoa(n)), Options{Stdout: &out, Combined: true})
	if got.Reason != Exited || got.ExitCode != 0 {
		t.Fatalf("Run = %+v", got)
	}
	var want strings.Builder
	for i := range n {
		fmt.Fprintf(&want, "out %d\nerr %d\n", i, i)
	}
	if out.String() != want.String() {
		t.Errorf("combined output is out of order (%d bytes, want %d)", out.Len(), want.Len())
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestSinkErrorDoesNotBlockChild(t *testing.T) {
	t.Parallel()
	got := Run(context.Background(), helperCmd(t, "bigline", "1000000"), Options{Stdout: failWriter{}})
	if got.Reason != WriteFailed {
		t.Fatalf("Run = %+v, want WriteFailed", got)
	}
	if got.Err == nil || !strings.Contains(got.Err.Error(), "disk full") || !errors.Is(got.Err, ErrOutputWrite) {
		t.Errorf("Err = %v, want the write error", got.Err)
	}
}

// A full disk under the output log stops the call and says so: the output
// could not be stored, so the call must not look like a success.
func TestFullDiskStopsCall(t *testing.T) {
	t.Parallel()
	for _, stream := range []string{"stdout", "stderr"} {
		t.Run(stream, func(t *testing.T) {
			t.Parallel()
			o := Options{Grace: 5 * time.Second}
			cmd := helperCmd(t, "flood")
			if stream == "stdout" {
				o.Stdout = &fullDisk{ok: 1000}
			} else {
				o.Stderr = &fullDisk{ok: 10}
				cmd = helperCmd(t, "exit", "0", "out", "some error text")
			}
			got := Run(context.Background(), cmd, o)
			if got.Reason != WriteFailed || !errors.Is(got.Err, ErrOutputWrite) || !errors.Is(got.Err, syscall.ENOSPC) {
				t.Fatalf("Run = %+v, want WriteFailed wrapping ENOSPC", got)
			}
			if got.Duration >= o.Grace {
				t.Errorf("Run took %s: the TERM should have stopped the flood", got.Duration)
			}
		})
	}
}

func TestMaxOutputStopsFlood(t *testing.T) {
	t.Parallel()
	var n countWriter
	got := Run(context.Background(), helperCmd(t, "flood"), Options{MaxOutput: 1 << 20, Stdout: &n, Grace: 5 * time.Second})
	if got.Reason != OutputTooLarge || !errors.Is(got.Err, errOutputTooLarge) {
		t.Fatalf("Run = %+v, want OutputTooLarge", got)
	}
	if got.ExitCode != 128+int(syscall.SIGTERM) {
		t.Errorf("exit code %d, want 143 (stopped by SIGTERM)", got.ExitCode)
	}
	if n.n < 1<<20 {
		t.Errorf("writer saw %d bytes, want at least the limit", n.n)
	}
}

// Output past the limit fails the call even when the command exits before
// Run could stop it: its log is incomplete.
func TestMaxOutputAfterExit(t *testing.T) {
	t.Parallel()
	got := Run(context.Background(), helperCmd(t, "bigline", "300000"), Options{MaxOutput: 100000})
	if got.Reason != OutputTooLarge {
		t.Fatalf("Run = %+v, want OutputTooLarge", got)
	}
	got = Run(context.Background(), helperCmd(t, "bigline", "300000"), Options{MaxOutput: 400000})
	if got.Reason != Exited || got.Err != nil {
		t.Fatalf("under the limit: Run = %+v, want Exited", got)
	}
}

// A grandchild that left the group with setsid is still stopped when the
// call ends, without waiting the grace period for the pipes it holds.
func TestSetsidOrphanIsStopped(t *testing.T) {
	t.Parallel()
	pidFile := filepath.Join(t.TempDir(), "grandchild")
	const grace = 5 * time.Second
	got := Run(context.Background(), helperCmd(t, "setsid-orphan", pidFile), Options{Grace: grace})
	if got.Reason != Exited || got.ExitCode != 0 {
		t.Errorf("Run = %+v, want Exited 0", got)
	}
	if got.Duration >= grace {
		t.Errorf("Run took %s: it waited for the escaped grandchild", got.Duration)
	}
	assertGone(t, waitFile(t, pidFile))
}

// TestWriteHeartbeat: with no write to a project file within
// WriteTimeout the call is stopped; a write satisfies the heartbeat for
// the rest of the call. The limits pass on a clock the test moves, once
// the helper has written.
func TestWriteHeartbeat(t *testing.T) {
	t.Parallel()
	const limit = 1500 * time.Millisecond
	tests := []struct {
		name   string
		writes []string // files the agent writes, relative to the project
		want   Reason
	}{
		{"no write stalls", nil, WriteStalled},
		{"only skipped trees stall", []string{".ralph/progress.json", ".git/index", "node_modules/x/y.js"}, WriteStalled},
		{"a project file counts", []string{"src/main.go"}, TimedOut},
		{"nested dir named like a skipped one counts", []string{"src/build/out.o"}, TimedOut},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			proj := t.TempDir()
			// an old file must not count as a write
			old := filepath.Join(proj, "README.md")
			if err := os.WriteFile(old, []byte("x"), 0o644); err != nil {
				t.Fatal(err)
			}
			past := time.Now().Add(-time.Hour)
			if err := os.Chtimes(old, past, past); err != nil {
				t.Fatal(err)
			}
			ready := filepath.Join(t.TempDir(), "ready")
			args := []string{"write"}
			for _, w := range tc.writes {
				args = append(args, filepath.Join(proj, w))
			}
			args = append(args, ready)
			clk := newManualClock()
			cmd := helperCmd(t, args...)
			done := make(chan Outcome, 1)
			go func() {
				// When a write is seen the heartbeat is satisfied and the
				// timeout ends the call instead.
				done <- Run(context.Background(), cmd, Options{
					WriteTimeout: limit, Timeout: 3 * limit, WatchDir: proj, Grace: time.Second, clock: clk,
				})
			}()
			pid := waitFile(t, ready)
			clk.awaitPending(t, 3) // the timeout, the heartbeat's deadline and its poll
			clk.Advance(limit)
			if tc.want == TimedOut {
				clk.Advance(2 * limit)
			}
			got := <-done
			if got.Reason != tc.want {
				t.Errorf("Run = %+v, want reason %d", got, tc.want)
			}
			if tc.want == WriteStalled && (!errors.Is(got.Err, errWriteStall) || got.Duration != limit) {
				t.Errorf("Run = %+v, want errWriteStall after %s", got, limit)
			}
			assertGone(t, pid)
		})
	}
}

func TestHeartbeatStopsWithTheCall(t *testing.T) {
	t.Parallel()
	// A long heartbeat must not delay a quick call (the bash loop's monitor
	// held every call up to its 30 s poll).
	got := Run(context.Background(), helperCmd(t, "exit", "0"), Options{WriteTimeout: time.Hour, WatchDir: t.TempDir()})
	if got.Reason != Exited || got.Duration > 5*time.Second {
		t.Errorf("Run = %+v", got)
	}
}

func TestModifiedSince(t *testing.T) {
	t.Parallel()
	proj := t.TempDir()
	now := time.Now()
	write := func(rel string, mtime time.Time) {
		p := filepath.Join(proj, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	write("old.txt", now.Add(-time.Hour))
	write(".ralph/logs/new.log", now)
	write(".ralph/progress.json", now)
	if modifiedSince(proj, defaultWatchSkip, now.Add(-time.Minute)) {
		t.Error("writes under .ralph counted with the default skip list")
	}
	if !modifiedSince(proj, []string{".ralph/logs"}, now.Add(-time.Minute)) {
		t.Error(".ralph/progress.json not counted when only .ralph/logs is skipped")
	}
	if modifiedSince(proj, []string{".ralph"}, now.Add(-time.Minute)) {
		t.Error("skip entry .ralph ignored")
	}
	write("sub/new.go", now)
	if !modifiedSince(proj, defaultWatchSkip, now.Add(-time.Minute)) {
		t.Error("sub/new.go not counted")
	}
	if modifiedSince(filepath.Join(proj, "missing"), nil, now.Add(-time.Minute)) {
		t.Error("a missing dir reported a write")
	}
}
