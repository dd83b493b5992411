package supervise

import (
	"os"
	"os/exec"
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
