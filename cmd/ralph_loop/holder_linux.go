package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// signalHolder asks the loop that holds the lock file at path to skip its
// wait (SIGUSR1) or to stop (SIGTERM). The process signalled is the one the
// kernel says holds the lock (/proc/locks), never the pid written in the
// file, which the agent or anything else in the project can rewrite; and
// it must run as this user, be a ralph_loop and have the lock file open.
// It is signalled through a pidfd taken before those checks, so a pid
// reused meanwhile is never hit.
func signalHolder(path string, skip bool) error {
	st, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("no loop is running in this project (%w)", err)
	}
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return errors.New("cannot identify the lock file")
	}
	dev, ino := uint64(sys.Dev), sys.Ino
	var why error
	for _, pid := range flockHolders(unix.Major(dev), unix.Minor(dev), ino) {
		fd, ferr := unix.PidfdOpen(pid, 0)
		if err := provenHolder(pid, dev, ino); err != nil {
			why = err
			if ferr == nil {
				unix.Close(fd)
			}
			continue
		}
		sig := syscall.SIGTERM
		if skip {
			sig = syscall.SIGUSR1
		}
		if ferr != nil { // no pidfd on this kernel
			return signalLoop(pid, skip)
		}
		defer unix.Close(fd)
		if err := unix.PidfdSendSignal(fd, sig, nil, 0); err != nil {
			return fmt.Errorf("cannot signal the loop (pid %d): %w", pid, err)
		}
		return nil
	}
	if why != nil {
		return fmt.Errorf("the lock is not held by a loop of yours: %w", why)
	}
	return errors.New("no loop is running in this project")
}

// flockHolders are the pids /proc/locks names as holding a flock on the
// file (major, minor, inode).
func flockHolders(major, minor uint32, ino uint64) []int {
	f, err := os.Open("/proc/locks")
	if err != nil {
		return nil
	}
	defer f.Close()
	want := fmt.Sprintf("%02x:%02x:%d", major, minor, ino)
	var pids []int
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// "1: FLOCK  ADVISORY  WRITE 4242 fe:00:9982704 0 EOF"; a
		// waiter's line has "->" after the number.
		fs := strings.Fields(sc.Text())
		if len(fs) < 6 || fs[1] != "FLOCK" || fs[5] != want {
			continue
		}
		if pid, err := strconv.Atoi(fs[4]); err == nil && pid > 0 {
			pids = append(pids, pid)
		}
	}
	return pids
}

// provenHolder says why pid is not a loop of this user that has the lock
// file (dev, ino) open, or nil when it is.
func provenHolder(pid int, dev, ino uint64) error {
	proc := "/proc/" + strconv.Itoa(pid)
	st, err := os.Stat(proc)
	if err != nil {
		return fmt.Errorf("process %d: %w", pid, err)
	}
	if sys, ok := st.Sys().(*syscall.Stat_t); !ok || int(sys.Uid) != os.Getuid() {
		return fmt.Errorf("process %d belongs to another user", pid)
	}
	comm, _ := os.ReadFile(proc + "/comm")
	self, _ := os.ReadFile("/proc/self/comm")
	if c := bytes.TrimSpace(comm); string(c) != "ralph_loop" && !bytes.Equal(c, bytes.TrimSpace(self)) {
		return fmt.Errorf("process %d is %q, not ralph_loop", pid, c)
	}
	fds, err := os.ReadDir(proc + "/fd")
	if err != nil {
		return fmt.Errorf("process %d: %w", pid, err)
	}
	for _, e := range fds {
		st, err := os.Stat(proc + "/fd/" + e.Name())
		if err != nil {
			continue
		}
		if sys, ok := st.Sys().(*syscall.Stat_t); ok && uint64(sys.Dev) == dev && sys.Ino == ino {
			return nil
		}
	}
	return fmt.Errorf("process %d does not have the lock file open", pid)
}
