//go:build unix

package main

import (
	"strconv"
	"strings"
	"syscall"

	"github.com/ralphloop/ralph_loop/ralphdir"
)

// lockHeld tells whether a loop holds the project's lock, and its pid as
// written in the lock file. It only opens the file for reading and asks for
// a shared lock that it drops at once: nothing is created or written.
func lockHeld(d *ralphdir.Dir) (bool, int) {
	p := d.Path(ralphdir.LockFile)
	f, err := ralphdir.OpenRegular(p)
	if err != nil {
		return false, 0
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB); err == nil {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		return false, 0
	}
	pid := 0
	if b, err := ralphdir.ReadFileCapped(p, 64); err == nil {
		pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
	}
	return true, pid
}
