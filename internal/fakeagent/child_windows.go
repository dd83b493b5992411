package fakeagent

import (
	"os/exec"
	"syscall"

	"golang.org/x/sys/windows"
)

// leaveGroup starts cmd in a console process group of its own (a process
// cannot leave its Job Object).
func leaveGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: windows.CREATE_NEW_PROCESS_GROUP}
}
