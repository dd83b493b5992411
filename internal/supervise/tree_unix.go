//go:build unix

package supervise

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
)

// tree is one call's processes: on Unix the process group the command
// leads, plus the strays that left it and carry the call's token.
type tree struct{}

func newTree() *tree { return &tree{} }

// prepare makes the command the leader of a new process group that dies
// with this process (see dieWithLoop and startSentinel); with session, of
// a new session too (its group's id is still its pid), which has no
// controlling terminal.
func (*tree) prepare(cmd *exec.Cmd, session bool) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: !session, Setsid: session}
	dieWithLoop(cmd)
}

// attach has nothing to do on Unix: the group exists from the start.
func (*tree) attach(*os.Process) {}

// stop is the graceful stop: SIGTERM to the strays carrying token and to
// the group.
func (*tree) stop(p *os.Process, token string) error {
	signalStrays(token, syscall.SIGTERM)
	err := syscall.Kill(-p.Pid, syscall.SIGTERM)
	if errors.Is(err, syscall.ESRCH) {
		return os.ErrProcessDone
	}
	return err
}

// kill sends SIGKILL to whatever is left of the group.
func (*tree) kill(p *os.Process) { _ = syscall.Kill(-p.Pid, syscall.SIGKILL) }

// close has nothing to release on Unix.
func (*tree) close() {}

// batchFile is false: Unix runs scripts through their #! line, with every
// argument intact.
func batchFile(string) (string, bool) { return "", false }
