package supervise

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// adoptOrphans makes this process a child subreaper: descendants orphaned
// by their parent (an agent's helper that called setsid and outlived the
// agent) are re-parented to us instead of to init, so that Run can stop
// them and collect their exit status.
func adoptOrphans() error {
	err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
	subreaper.Store(err == nil)
	return err
}

// subreaper is set once adoptOrphans has made this process a subreaper.
var subreaper atomic.Bool

// noDescendants reports that no descendant of ours is left but the
// sentinel: we are a subreaper, so every orphaned descendant is
// re-parented to us, and no thread of ours has another child (zombies
// included). It is the cheap answer after most calls; false means "cannot
// tell", and the caller scans.
//
// Before the sentinel has started, one waitid that neither waits nor reaps
// (WNOHANG, WNOWAIT) answers it: it fails with ECHILD exactly when no
// thread of ours has a child of any kind (WALL), running, stopped or
// ended. Once the sentinel, a child of ours, runs, waitid cannot leave it
// out, and onlyChild reads the children's lists instead.
func noDescendants() bool {
	if !subreaper.Load() {
		return false
	}
	if pid := sentinelPid(); pid != 0 {
		return onlyChild(pid)
	}
	var info unix.Siginfo
	err := unix.Waitid(unix.P_ALL, 0, &info, unix.WEXITED|unix.WSTOPPED|unix.WCONTINUED|unix.WNOHANG|unix.WNOWAIT|unix.WALL, nil)
	return errors.Is(err, unix.ECHILD)
}

// onlyChild reports that pid is our only child, or that we have none. The
// kernel lists each thread's children, zombies included, in
// /proc/self/task/TID/children: a child is the thread's that forked it.
// A child moves between lists only to the first live thread, the main
// one (an orphan re-parented to us, or the children of a thread that
// ends), or leaves them when reaped; so the main thread's list is read
// last, and a descendant whose topmost live ancestor moves while the
// lists are read is still met there. A list's reading can skip an entry
// only after the one it last gave was reaped or moved, and the sentinel,
// never reaped, is the only entry this accepts. Without the lists
// (a kernel without CONFIG_PROC_CHILDREN) it cannot tell: false.
func onlyChild(pid int) bool {
	self := strconv.Itoa(os.Getpid())
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return false
	}
	names := make([]string, 0, len(tasks))
	for _, t := range tasks {
		if t.Name() != self {
			names = append(names, t.Name())
		}
	}
	names = append(names, self)
	want := strconv.Itoa(pid)
	for _, tid := range names {
		b, err := os.ReadFile("/proc/self/task/" + tid + "/children")
		if err != nil && (tid == self || !errors.Is(err, fs.ErrNotExist)) {
			return false
		}
		for _, child := range strings.Fields(string(b)) {
			if child != want {
				return false
			}
		}
	}
	return true
}

// strays lists the live processes whose environment carries token. A
// zombie's environment reads empty, so a process that has ended is never
// listed.
//
// A process in the middle of execve reads empty too, for a moment: its new
// image has no environment yet. Such a process may carry token (a helper
// that execs just as the call ends), so a scan that finds none while a
// process was seen mid-exec is made again, a little later, until the exec
// is surely over.
func strays(token string) []int {
	pause := time.Millisecond
	for {
		pids, unsure := scanStrays(token)
		if len(pids) > 0 || !unsure || pause > 32*time.Millisecond {
			return pids
		}
		time.Sleep(pause)
		pause *= 2
	}
}

// scanStrays is one pass over /proc for strays. unsure reports a process
// that may have been met in the middle of execve, whose environment could
// not be read.
func scanStrays(token string) (pids []int, unsure bool) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil, false
	}
	self := os.Getpid()
	needle := []byte(token + "\x00")
	buf := make([]byte, 64<<10)
	born := tokenTime(token)
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		env, err := readEnviron(pid, &buf)
		if err != nil {
			continue
		}
		if len(env) == 0 {
			unsure = unsure || execing(pid, born)
			continue
		}
		if bytes.HasPrefix(env, needle) || bytes.Contains(env, append([]byte{0}, needle...)) {
			pids = append(pids, pid)
		}
	}
	return pids, unsure
}

// readEnviron reads /proc/PID/environ into *buf (grown as needed) in one
// read. The kernel copies the whole environment under one hold of the
// process's memory, so a process that execs meanwhile yields its old
// environment whole; a read in small pieces could end early at the exec
// and so miss the entries after the first piece.
func readEnviron(pid int, buf *[]byte) ([]byte, error) {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	for {
		n, err := f.ReadAt(*buf, 0)
		if n < len(*buf) {
			if err != nil && !errors.Is(err, io.EOF) {
				return nil, err
			}
			return (*buf)[:n], nil
		}
		*buf = make([]byte, 4*len(*buf))
	}
}

// execing reports whether pid, whose environment read empty, may be in
// the middle of execve and carry the token born at born: it is alive, not
// a kernel thread (those read empty too), and it started after the token
// was made, give or take the clock's grain. A process with an empty
// environment from before the call (such as a container's init) so costs
// no rescan.
func execing(pid int, born time.Time) bool {
	st, err := readStat(pid)
	if err != nil || st.state == 'Z' || st.flags&pfKthread != 0 {
		return false
	}
	started, ok := startTime(st)
	return !ok || !started.Before(born.Add(-2*time.Second))
}

// startTime is when the process of st started, by the wall clock: /proc
// counts it in clock ticks (USER_HZ, 100 a second) after boot, and
// /proc/uptime tells how long ago boot was.
func startTime(st stat) (time.Time, bool) {
	b, err := os.ReadFile("/proc/uptime")
	if err != nil {
		return time.Time{}, false
	}
	up, _, _ := strings.Cut(string(b), " ")
	secs, err := strconv.ParseFloat(up, 64)
	if err != nil {
		return time.Time{}, false
	}
	age := time.Duration(secs*float64(time.Second)) - time.Duration(st.start)*time.Second/userHZ
	return time.Now().Add(-age), true
}

// userHZ is the unit of /proc/PID/stat's times: clock ticks, fixed at 100
// a second for user space whatever the kernel's own rate.
const userHZ = 100

// pfKthread is the kernel-thread bit of /proc/PID/stat's flags (PF_KTHREAD).
const pfKthread = 0x00200000

// signalStrays sends sig to every process that carries token.
func signalStrays(token string, sig syscall.Signal) {
	for _, pid := range strays(token) {
		_ = syscall.Kill(pid, sig)
	}
}

// stopStrays ends every process that carries token: SIGTERM, up to wait
// for them to go, then SIGKILL; the processes re-parented to us are reaped.
// A killed process's own children carry the token too and are found by the
// next round.
func stopStrays(token string, wait time.Duration) {
	if noDescendants() {
		return
	}
	seen := map[int]bool{}
	for round := 0; round < 5; round++ {
		pids := strays(token)
		if len(pids) == 0 {
			break
		}
		for _, pid := range pids {
			seen[pid] = true
			_ = syscall.Kill(pid, syscall.SIGTERM)
		}
		deadline := time.Now().Add(wait)
		for len(strays(token)) > 0 && time.Now().Before(deadline) {
			reap(seen)
			time.Sleep(10 * time.Millisecond)
		}
		for _, pid := range strays(token) {
			seen[pid] = true
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		wait = 100 * time.Millisecond
	}
	deadline := time.Now().Add(200 * time.Millisecond)
	for reap(seen) > 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
}

// reap collects the exit status of the listed processes that are our
// children and have ended, and forgets them and those that are not our
// children; it returns how many are left to collect.
func reap(pids map[int]bool) int {
	for pid := range pids {
		var ws syscall.WaitStatus
		got, err := syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
		if got == pid || errors.Is(err, syscall.ECHILD) {
			delete(pids, pid)
		}
	}
	return len(pids)
}
