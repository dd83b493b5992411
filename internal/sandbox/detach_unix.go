//go:build unix

package sandbox

import (
	"os/exec"
	"syscall"
)

// detach puts cmd in a session of its own, so the loop's end (its process
// group's signals) does not end it.
func detach(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} }
