//go:build unix

package main

import (
	"io/fs"
	"os"
	"syscall"
)

// sameDevice reports whether a and b are on the same filesystem.
func sameDevice(a, b string) bool {
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	if errA != nil || errB != nil {
		return false
	}
	da, okA := sa.Sys().(*syscall.Stat_t)
	db, okB := sb.Sys().(*syscall.Stat_t)
	return okA && okB && da.Dev == db.Dev
}

// ownedByMe reports whether this process's user owns the file.
func ownedByMe(st fs.FileInfo) bool {
	s, ok := st.Sys().(*syscall.Stat_t)
	return ok && int(s.Uid) == os.Geteuid()
}

// pidGone reports whether no process has pid.
func pidGone(pid int) bool { return syscall.Kill(pid, 0) == syscall.ESRCH }
