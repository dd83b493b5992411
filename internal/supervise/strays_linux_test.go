package supervise

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

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

// A process that execs as the scan reads it is still found: its
// environment reads empty or, read in pieces, ends early for a moment.
// This one execs itself over and over, so nearly every scan meets it
// mid-exec at some point; a single pass over /proc misses it about one
// read in four.
func TestStraysFindsAProcessMidExec(t *testing.T) {
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
	for i := range 300 {
		if pids := strays(token); !slices.Contains(pids, c.Process.Pid) {
			t.Fatalf("scan %d: strays = %v, want %d among them", i, pids, c.Process.Pid)
		}
	}
}
