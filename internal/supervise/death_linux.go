package supervise

import (
	"os/exec"
	"syscall"
)

// dieWithLoop asks the kernel to SIGKILL the command when this process
// dies (PR_SET_PDEATHSIG). The signal follows the death of the thread
// that started the command, not of the process: Run keeps its goroutine
// on that thread until the command is reaped (see Run).
func dieWithLoop(cmd *exec.Cmd) { cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL }

// killStrays sends SIGKILL to every process carrying token, again while
// new ones appear (a process being killed may have just forked).
func killStrays(token string) {
	for round := 0; round < 5; round++ {
		pids := strays(token)
		if len(pids) == 0 {
			return
		}
		for _, pid := range pids {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}
