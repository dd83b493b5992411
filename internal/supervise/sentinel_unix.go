//go:build unix

package supervise

import (
	"bufio"
	"fmt"
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
	mu   sync.Mutex
	w    *os.File // nil: no sentinel
	next int
}

// startSentinel starts the sentinel: a copy of this program (self, run as
// argv0) that outlives it and, once this process has ended however it
// ended (SIGKILL, the OOM killer, a crash), kills the process groups of
// the calls that were under way, and on Linux every process carrying
// their tokens. It learns of the calls through a pipe whose only writer
// is this process, so the pipe's end of file is this process's death; no
// signal, thread or timing is involved.
//
// The sentinel runs in its own session and ignores the stop signals (a
// terminal's Ctrl+C, a `pkill ralph_loop` that stops the loop politely).
// It is started through a short-lived copy that exits at once, so it is
// not a child of this process: call startSentinel before adoptOrphans, or
// the sentinel would be re-parented to us and count as a descendant.
func startSentinel(self, argv0 string) error {
	r, w, err := os.Pipe()
	if err != nil {
		return fmt.Errorf("start the sentinel: %w", err)
	}
	defer r.Close()
	cmd := &exec.Cmd{
		Path:        self,
		Args:        []string{argv0, sentinelArg, "start"},
		Stdin:       r,
		Dir:         "/",
		SysProcAttr: &syscall.SysProcAttr{Setsid: true},
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		w.Close()
		return fmt.Errorf("start the sentinel %s: %w %s", self, err, strings.TrimSpace(string(out)))
	}
	sentinel.mu.Lock()
	sentinel.w = w
	sentinel.mu.Unlock()
	return nil
}

// runSentinel is the sentinel's main (args follow sentinelArg); it
// returns the exit code. "start" starts the real sentinel on the same stdin and
// returns at once; "watch" reads the calls from stdin until its end, then
// kills what is still listed.
func runSentinel(args []string) int {
	if len(args) == 1 && args[0] == "start" {
		self, err := os.Executable()
		if err != nil {
			fmt.Fprintf(os.Stderr, "sentinel: %v\n", err)
			return 1
		}
		cmd := &exec.Cmd{Path: self, Args: []string{os.Args[0], sentinelArg, "watch"}, Stdin: os.Stdin, Dir: "/",
			SysProcAttr: &syscall.SysProcAttr{Setsid: true}}
		if err := cmd.Start(); err != nil {
			fmt.Fprintf(os.Stderr, "sentinel: %v\n", err)
			return 1
		}
		return 0
	}
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
