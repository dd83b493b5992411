//go:build unix

package supervise

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// sentinel is this process's end of the pipe to its sentinel: Run tells
// it which calls are under way.
var sentinel struct {
	mu     sync.Mutex
	warnTo io.Writer // set by Guard: the next call starts the sentinel, warning here if it cannot
	w      *os.File  // nil: no sentinel
	pid    int       // the sentinel's, once started: our child, never reaped (see noDescendants)
	next   int
}

// armSentinel makes the next call (Run) start the sentinel, before the
// call itself starts: a run that makes no call needs none. A sentinel
// that cannot start is a warning on stderr.
func armSentinel(stderr io.Writer) {
	sentinel.mu.Lock()
	defer sentinel.mu.Unlock()
	if sentinel.w == nil {
		sentinel.warnTo = stderr
	}
}

// sentinelFirst starts the sentinel if Guard armed it: Run calls it
// before it starts a command.
func sentinelFirst() {
	sentinel.mu.Lock()
	defer sentinel.mu.Unlock()
	stderr := sentinel.warnTo
	if stderr == nil {
		return
	}
	sentinel.warnTo = nil
	if err := startSentinel(); err != nil {
		fmt.Fprintf(stderr, "ralph_loop: warning: %v; an agent may outlive a loop that is killed\n", err)
	}
}

// startSentinel starts the sentinel: a copy of this program (run as
// ralph_loop) that outlives it and, once this process has ended however it
// ended (SIGKILL, the OOM killer, a crash), kills the process groups of
// the calls that were under way, and on Linux every process carrying
// their tokens. It learns of the calls through a pipe whose only writer
// is this process, so the pipe's end of file is this process's death; no
// signal, thread or timing is involved. It holds the pipe's read end from
// the moment Start returns (the exec has happened), so a death right after
// is seen too. The caller holds sentinel.mu.
//
// The sentinel runs in its own session and ignores the stop signals (a
// terminal's Ctrl+C, a `pkill ralph_loop` that stops the loop politely).
// It is a child of this process that is never waited for: when this
// process dies it is re-parented like any orphan, and until then its pid
// (a zombie's, should it be killed) cannot be reused, so noDescendants can
// tell it from a call's descendant by its pid.
func startSentinel() error {
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("cannot find this program to start its sentinel (%w)", err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		return fmt.Errorf("start the sentinel: %w", err)
	}
	defer r.Close()
	cmd := &exec.Cmd{
		Path:        self,
		Args:        []string{"ralph_loop", sentinelArg, "watch"},
		Stdin:       r,
		Dir:         "/",
		SysProcAttr: &syscall.SysProcAttr{Setsid: true},
	}
	if err := cmd.Start(); err != nil {
		w.Close()
		return fmt.Errorf("start the sentinel %s: %w", self, err)
	}
	_ = cmd.Process.Release() // its pidfd; the process stays our child
	sentinel.w, sentinel.pid = w, cmd.Process.Pid
	return nil
}

// sentinelPid is the sentinel's pid, 0 before it has started. It stays
// our child, running or a zombie, even once its pipe is forgotten.
func sentinelPid() int {
	sentinel.mu.Lock()
	defer sentinel.mu.Unlock()
	return sentinel.pid
}

// runSentinel is the sentinel's main (args follow sentinelArg); it
// returns the exit code. "watch" reads the calls from stdin until its end,
// then kills what is still listed.
func runSentinel(args []string) int {
	if len(args) != 1 || args[0] != "watch" {
		fmt.Fprintf(os.Stderr, "sentinel: unknown mode %q\n", args)
		return 2
	}
	signal.Ignore(syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGPIPE)
	calls := map[string][2]string{} // id -> pgid, token
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		switch {
		case len(f) == 4 && f[0] == "+":
			calls[f[1]] = [2]string{f[2], f[3]}
		case len(f) == 2 && f[0] == "-":
			delete(calls, f[1])
		}
	}
	for _, c := range calls {
		if pgid, err := strconv.Atoi(c[0]); err == nil && pgid > 1 {
			_ = syscall.Kill(-pgid, syscall.SIGKILL)
		}
		killStrays(c[1])
	}
	return 0
}

// watched tells the sentinel, if there is one, that the call led by pid
// and carrying token is under way; it returns the call's id for
// unwatched.
func watched(pid int, token string) int {
	sentinel.mu.Lock()
	defer sentinel.mu.Unlock()
	if sentinel.w == nil {
		return 0
	}
	sentinel.next++
	tellSentinel("+ %d %d %s\n", sentinel.next, pid, token)
	return sentinel.next
}

// unwatched tells the sentinel that call id is over.
func unwatched(id int) {
	if id == 0 {
		return
	}
	sentinel.mu.Lock()
	defer sentinel.mu.Unlock()
	if sentinel.w != nil {
		tellSentinel("- %d\n", id)
	}
}

// tellSentinel writes one line (shorter than PIPE_BUF, so in one piece);
// a sentinel that is gone is forgotten. The caller holds sentinel.mu.
func tellSentinel(format string, args ...any) {
	if _, err := fmt.Fprintf(sentinel.w, format, args...); err != nil {
		sentinel.w.Close()
		sentinel.w = nil
	}
}
