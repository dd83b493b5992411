package sandbox

import (
	"os/exec"
	"syscall"
)

// detach puts cmd in a process group of its own, so a console Ctrl+C to the
// loop does not end it.
func detach(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP}
}
