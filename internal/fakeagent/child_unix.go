//go:build unix

package fakeagent

import (
	"os/exec"
	"syscall"
)

// leaveGroup makes cmd a new session, out of the caller's process group.
func leaveGroup(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} }
