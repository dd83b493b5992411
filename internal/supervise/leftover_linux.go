package supervise

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// identify is the callRecord of the call led by pid that carries token.
func identify(pid int, token string) (callRecord, error) {
	st, err := readStat(pid)
	if err != nil {
		return callRecord{}, err
	}
	return callRecord{Pid: pid, Start: st.start, Token: token}, nil
}

// stopLeftovers stops what the call recorded in l left running, and
// returns how many processes it signalled. The record comes from a file
// anyone with the repository could have written, so a process is only
// signalled once it is proven to be such a leftover:
//
//   - it runs as our user and its environment holds l.Token exactly, a
//     token of the form Run gives (tokenVar=<loop pid>-<n>-<nanoseconds>),
//     which a process can only carry when it, or an ancestor, was started
//     with it;
//   - the loop the token names is gone: no process with that pid started
//     before it (a live loop's calls are that loop's business);
//   - its process group is signalled only when it is the recorded leader:
//     the same pid and start time, leading its own group.
//
// Each process is held by a pidfd before it is checked, so a pid reused
// after the check cannot be hit. The proven processes get SIGTERM, up to
// grace to end, then SIGKILL. The error says which process could not be
// signalled.
func stopLeftovers(l callRecord, grace time.Duration) (int, error) {
	if l.Pid <= 1 || !wellFormedToken(l.Token) {
		return 0, nil
	}
	var procs []*os.Process
	group := 0
	defer func() {
		for _, p := range procs {
			_ = p.Release()
		}
	}()
	for _, pid := range strays(l.Token) {
		p, err := os.FindProcess(pid) // a pidfd on Linux
		if err != nil {
			continue
		}
		st, err := readStat(pid)
		if err != nil || !leftover(pid, st, l.Token) {
			_ = p.Release()
			continue
		}
		procs = append(procs, p)
		if pid == l.Pid && st.start == l.Start && st.pgid == pid {
			group = pid
		}
	}
	if len(procs) == 0 {
		return 0, nil
	}
	if err := signalAll(procs, group, syscall.SIGTERM); err != nil {
		return len(procs), err
	}
	deadline := time.Now().Add(grace)
	for !allGone(procs) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	return len(procs), signalAll(procs, group, syscall.SIGKILL)
}

// leftover reports whether pid, carrying token in its environment, is ours
// and outlived the loop that started its call.
func leftover(pid int, st stat, token string) bool {
	if st.uid != uint32(os.Getuid()) || st.state == 'Z' {
		return false
	}
	if !hasEnv(pid, token) {
		return false
	}
	loop, _ := tokenLoop(token)
	if ls, err := readStat(loop); err == nil && ls.start <= st.start {
		return false // that loop (or, safe either way, a process that reused its pid) still runs
	}
	return true
}

// signalAll sends sig to the group (when proven) and to each process.
// A process that is already gone is not an error.
func signalAll(procs []*os.Process, group int, sig syscall.Signal) error {
	if group > 0 {
		if err := syscall.Kill(-group, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
			return fmt.Errorf("signal process group %d: %w", group, err)
		}
	}
	for _, p := range procs {
		if err := p.Signal(sig); err != nil && !errors.Is(err, os.ErrProcessDone) && !errors.Is(err, syscall.ESRCH) {
			return fmt.Errorf("signal pid %d: %w", p.Pid, err)
		}
	}
	return nil
}

// allGone reports whether every process has ended (a zombie has).
func allGone(procs []*os.Process) bool {
	for _, p := range procs {
		if err := p.Signal(syscall.Signal(0)); err == nil {
			if st, err := readStat(p.Pid); err == nil && st.state != 'Z' {
				return false
			}
		}
	}
	return true
}

// wellFormedToken reports whether token is tokenVar=<pid>-<n>-<nanoseconds>.
func wellFormedToken(token string) bool {
	_, ok := tokenLoop(token)
	return ok
}

// tokenLoop is the pid of the loop that made token.
func tokenLoop(token string) (int, bool) {
	n, ok := tokenFields(token)
	if !ok || n[0] == 0 {
		return 0, false
	}
	return int(n[0]), true
}

// tokenTime is when token was made, by the wall clock (the zero time for
// a token not made by newToken).
func tokenTime(token string) time.Time {
	n, ok := tokenFields(token)
	if !ok {
		return time.Time{}
	}
	return time.Unix(0, n[2])
}

// tokenFields are the three numbers of token: the loop's pid, the call's
// number and the nanoseconds when it was made.
func tokenFields(token string) ([3]int64, bool) {
	var n [3]int64
	v, ok := strings.CutPrefix(token, tokenVar+"=")
	if !ok {
		return n, false
	}
	parts := strings.Split(v, "-")
	if len(parts) != 3 {
		return n, false
	}
	for i, s := range parts {
		x, err := strconv.ParseInt(s, 10, 64)
		if err != nil || x < 0 {
			return n, false
		}
		n[i] = x
	}
	return n, true
}

// hasEnv reports whether pid's environment holds the entry kv exactly.
func hasEnv(pid int, kv string) bool {
	buf := make([]byte, 64<<10)
	b, err := readEnviron(pid, &buf)
	if err != nil {
		return false
	}
	for e := range strings.SplitSeq(string(b), "\x00") {
		if e == kv {
			return true
		}
	}
	return false
}

// stat is what stopLeftovers reads of a process.
type stat struct {
	state byte
	flags uint64
	pgid  int
	start uint64
	uid   uint32
}

// readStat reads /proc/PID/stat: the state (field 3), the process group
// (field 5), the flags (field 9) and the start time (field 22), and the
// owner of /proc/PID.
func readStat(pid int) (stat, error) {
	if pid <= 0 {
		return stat{}, fmt.Errorf("pid %d", pid)
	}
	dir := "/proc/" + strconv.Itoa(pid)
	b, err := os.ReadFile(dir + "/stat")
	if err != nil {
		return stat{}, err
	}
	// pid (comm) S ppid pgrp ...: comm may hold blanks and brackets, so
	// the fields start after the last ')'.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return stat{}, fmt.Errorf("%s/stat: no command name", dir)
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 20 || len(f[0]) != 1 {
		return stat{}, fmt.Errorf("%s/stat: %d fields", dir, len(f)+2)
	}
	pgid, err1 := strconv.Atoi(f[2])
	flags, err2 := strconv.ParseUint(f[6], 10, 64)
	start, err3 := strconv.ParseUint(f[19], 10, 64)
	if err := errors.Join(err1, err2, err3); err != nil {
		return stat{}, fmt.Errorf("%s/stat: %w", dir, err)
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return stat{}, err
	}
	sys, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return stat{}, fmt.Errorf("%s: no owner", dir)
	}
	return stat{state: f[0][0], flags: flags, pgid: pgid, start: start, uid: sys.Uid}, nil
}
