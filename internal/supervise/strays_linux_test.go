package supervise

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// noDescendants answers true only while no child of ours exists, running
// or ended and not yet collected. Not parallel: the other tests' children
// would be ours too.
func TestNoDescendants(t *testing.T) {
	was := subreaper.Load()
	subreaper.Store(true)
	t.Cleanup(func() { subreaper.Store(was) })
	if !noDescendants() {
		t.Fatal("noDescendants = false with no child")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	c := exec.Command(exe, "block")
	c.Env = append(os.Environ(), helperEnv+"=1")
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	if noDescendants() {
		t.Error("noDescendants = true with a running child")
	}
	if err := c.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	// Wait for it to end without collecting it: a zombie is still a child.
	var info unix.Siginfo
	if err := unix.Waitid(unix.P_PID, c.Process.Pid, &info, unix.WEXITED|unix.WNOWAIT, nil); err != nil {
		t.Fatal(err)
	}
	if noDescendants() {
		t.Error("noDescendants = true with an ended child not yet collected")
	}
	_ = c.Wait()
	if !noDescendants() {
		t.Error("noDescendants = false after the child was collected")
	}
	subreaper.Store(false)
	if noDescendants() {
		t.Error("noDescendants = true without the subreaper")
	}
}

// Once the sentinel runs, noDescendants leaves it out, running or ended,
// and still sees any other child, an orphan re-parented to us included
// (it goes to the main thread's list, read last). Not parallel, as above;
// the test binary is a real subreaper while it runs.
func TestNoDescendantsButTheSentinel(t *testing.T) {
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		t.Skipf("cannot become a child subreaper: %v", err)
	}
	was := subreaper.Load()
	subreaper.Store(true)
	t.Cleanup(func() {
		subreaper.Store(was)
		_ = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0)
	})
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), helperEnv+"=1")
	sent := exec.Command(exe, "block")
	sent.Env = env
	if err := sent.Start(); err != nil {
		t.Fatal(err)
	}
	sentinel.mu.Lock()
	sentinel.pid = sent.Process.Pid
	sentinel.mu.Unlock()
	t.Cleanup(func() {
		sentinel.mu.Lock()
		sentinel.pid = 0
		sentinel.mu.Unlock()
		_ = sent.Process.Kill()
		_ = sent.Wait()
	})
	if !noDescendants() {
		t.Fatal("noDescendants = false with the sentinel our only child")
	}
	if err := sent.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	var info unix.Siginfo
	if err := unix.Waitid(unix.P_PID, sent.Process.Pid, &info, unix.WEXITED|unix.WNOWAIT, nil); err != nil {
		t.Fatal(err)
	}
	if !noDescendants() {
		t.Error("noDescendants = false with the ended sentinel our only child")
	}

	// A leader that leaves a grandchild in a session of its own and exits:
	// once the leader is collected, the grandchild is ours.
	pidFile := filepath.Join(t.TempDir(), "grandchild")
	leader := exec.Command(exe, "setsid-orphan", pidFile)
	leader.Env = env
	if err := leader.Run(); err != nil {
		t.Fatal(err)
	}
	grandchild, err := strconv.Atoi(strings.TrimSpace(waitFile(t, pidFile)))
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Kill(grandchild, unix.SIGKILL)
	if noDescendants() {
		t.Error("noDescendants = true with an orphan re-parented to us")
	}
	if err := unix.Kill(grandchild, unix.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if err := unix.Waitid(unix.P_PID, grandchild, &info, unix.WEXITED|unix.WNOWAIT, nil); err != nil {
		t.Fatal(err)
	}
	if noDescendants() {
		t.Error("noDescendants = true with the ended orphan not yet collected")
	}
	var ws unix.WaitStatus
	if _, err := unix.Wait4(grandchild, &ws, 0, nil); err != nil {
		t.Fatal(err)
	}
	if !noDescendants() {
		t.Error("noDescendants = false after the orphan was collected")
	}
}

// A process that execs as the scan reads it is still found: its
// environment reads empty or, read in pieces, ends early for a moment.
// This one execs itself over and over, so nearly every scan meets it
// mid-exec at some point; a single pass over /proc misses it about one
// read in four (on a busy machine, a single-pass scan first missed it at
// scans 9, 26 and 33), so a plain go test makes 100 scans and CI
// (CI=true) 300.
func TestStraysFindsAProcessMidExec(t *testing.T) {
	scans := 100
	if ci := os.Getenv("CI"); ci != "" && ci != "false" && ci != "0" {
		scans = 300
	}
	script := filepath.Join(t.TempDir(), "again")
	if err := os.WriteFile(script, []byte("#!/bin/sh\nexec \"$0\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	token := newToken()
	c := exec.Command(script)
	c.Env = append(os.Environ(), token)
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Process.Kill(); _ = c.Wait() })
	for i := range scans {
		if pids := strays(token); !slices.Contains(pids, c.Process.Pid) {
			t.Fatalf("scan %d: strays = %v, want %d among them", i, pids, c.Process.Pid)
		}
	}
}

// A process with an empty environment is a suspect (it may be in the
// middle of an exec) only when it started after the call's token was
// made: a container's init, whose environment is empty, costs no rescans.
func TestExecingOnlyWhenStartedAfterTheToken(t *testing.T) {
	c := exec.Command("sleep", "30")
	c.Env = []string{}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Process.Kill(); _ = c.Wait() })
	pid := c.Process.Pid
	cmdline := "/proc/" + strconv.Itoa(pid) + "/cmdline"
	for b, _ := os.ReadFile(cmdline); !bytes.HasPrefix(b, []byte("sleep\x00")); b, _ = os.ReadFile(cmdline) {
		time.Sleep(time.Millisecond) // sleep's exec is not over yet
	}
	if !execing(pid, time.Now().Add(-time.Minute)) {
		t.Errorf("execing(%d, a minute ago) = false for a process that started since", pid)
	}
	if execing(pid, time.Now().Add(time.Minute)) {
		t.Errorf("execing(%d, in a minute) = true for a process that started before", pid)
	}
	if pids, _ := scanStrays(newToken()); len(pids) > 0 {
		t.Fatalf("scanStrays = %v for a fresh token", pids)
	}
}

// An environment larger than the first read's buffer is read whole: the
// token after a 200 KB entry is found.
func TestStraysReadsALargeEnvironment(t *testing.T) {
	token := newToken()
	c := exec.Command("sleep", "30")
	c.Env = append(os.Environ(), "BIG1="+strings.Repeat("x", 100<<10), "BIG2="+strings.Repeat("y", 100<<10), token)
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Process.Kill(); _ = c.Wait() })
	if pids := strays(token); !slices.Contains(pids, c.Process.Pid) {
		t.Fatalf("strays = %v, want %d among them", pids, c.Process.Pid)
	}
}
