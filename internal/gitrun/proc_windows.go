package gitrun

import (
	"os/exec"
	"time"
)

// ownGroup bounds the wait for cmd's output once its context has ended
// and git is killed (Windows has no process group to kill; a child git
// started holds the output pipes at most WaitDelay longer).
func ownGroup(cmd *exec.Cmd) {
	cmd.WaitDelay = 2 * time.Second
}
