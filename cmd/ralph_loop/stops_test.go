//go:build unix

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// started is the real program, started.
type started struct {
	pid  int
	done chan error
}

// startLoop starts the real program in p with env and args, its output
// into out; it is killed when the test ends.
func startLoop(t *testing.T, p *loopProject, env []string, out *bytes.Buffer, args ...string) *started {
	t.Helper()
	cmd := p.command(t, env, args...)
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r := &started{pid: cmd.Process.Pid, done: make(chan error, 1)}
	go func() { r.done <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-r.done
	})
	return r
}

// exit is the program's exit code, or ok=false when it has not exited
// within limit.
func (r *started) exit(limit time.Duration) (code int, ok bool) {
	select {
	case err := <-r.done:
		r.done <- err
		return commandExitCode(err), true
	case <-time.After(limit):
		return 0, false
	}
}

// TestStopDuringNotifierDrain: the run has ended and its notifier hook
// hangs, under a NOTIFY_TIMEOUT of a minute; a SIGTERM then ends the wait
// within the short bound instead of the whole minute.
func TestStopDuringNotifierDrain(t *testing.T) {
	t.Parallel()
	p := newLoopProject(t, 3, tickScript())
	ready := filepath.Join(t.TempDir(), "hook.ready")
	hook := filepath.Join(t.TempDir(), "hook.sh")
	mustWrite(t, hook, "touch \"$1\"\nexec sleep 120\n")
	var out bytes.Buffer
	loop := startLoop(t, p, []string{"MAX_LOOPS=1", "NOTIFY_TIMEOUT=60s", "NOTIFY_COMMAND=sh " + hook + " " + ready}, &out)
	if !waitFor(20*time.Second, func() bool { return exists(ready) }) {
		t.Fatalf("the hook never ran\n%s", out.String())
	}
	start := time.Now()
	if err := syscall.Kill(loop.pid, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if _, ok := loop.exit(15 * time.Second); !ok {
		t.Fatalf("a stop during the notifier drain was ignored\n%s", out.String())
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("the loop took %s to exit after the stop", took)
	}
}

// TestStopKillsATermIgnoringGate: a quality gate that ignores SIGTERM (and
// a helper it started) does not outlive the loop that a stop ended while
// the gate ran.
func TestStopKillsATermIgnoringGate(t *testing.T) {
	t.Parallel()
	p := newLoopProject(t, 3, tickScript())
	dir := t.TempDir()
	pids := filepath.Join(dir, "gate.pids")
	gate := filepath.Join(dir, "gate.sh")
	mustWrite(t, gate, "trap '' TERM\nsleep 300 &\necho $$ $! > "+pids+".tmp\nmv "+pids+".tmp "+pids+"\nwhile :; do sleep 1; done\n")
	var out bytes.Buffer
	loop := startLoop(t, p, []string{"MAX_LOOPS=1", "QUALITY_GATES=sh " + gate, "QUALITY_GATE_TIMEOUT=300"}, &out)
	if !waitFor(20*time.Second, func() bool { return exists(pids) }) {
		t.Fatalf("the gate never ran\n%s", out.String())
	}
	b, _ := os.ReadFile(pids)
	var gatePids []int
	for _, f := range strings.Fields(string(b)) {
		n, err := strconv.Atoi(f)
		if err != nil {
			t.Fatalf("%s: %q", pids, b)
		}
		gatePids = append(gatePids, n)
	}
	if err := syscall.Kill(loop.pid, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if _, ok := loop.exit(15 * time.Second); !ok {
		t.Fatalf("the loop did not stop\n%s", out.String())
	}
	for _, gp := range gatePids {
		if !waitFor(2*time.Second, func() bool { return processGone(gp) }) {
			syscall.Kill(gp, syscall.SIGKILL)
			t.Errorf("process %d of the gate outlived the loop\n%s", gp, out.String())
		}
	}
}
