//go:build !windows

package readmodel

import (
	"os"
	"syscall"
)

// fileID is the file's inode, so that a file replaced by one of the same
// size and time still counts as changed.
func fileID(st os.FileInfo) uint64 {
	if sys, ok := st.Sys().(*syscall.Stat_t); ok {
		return uint64(sys.Ino)
	}
	return 0
}
