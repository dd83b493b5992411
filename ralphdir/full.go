package ralphdir

import (
	"errors"
	"os"
	"syscall"
)

// noSpace reports a full disk or quota.
func noSpace(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT)
}

// overwriteInPlace is WriteFileAtomic's last resort on a full disk: when
// the new content fits in the blocks the file already has, it is written
// over them (no new block is needed), and the file is cut to its length.
// So status.json still gets its final "stopped"/"error" record when the
// disk is full. It is not atomic: a reader in between may see the new
// content followed by a remnant of the old one.
func overwriteInPlace(path string, data []byte) error {
	st, err := os.Lstat(path)
	if err != nil {
		return err
	}
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !st.Mode().IsRegular() || !ok || int64(len(data)) > sys.Blocks*512 {
		return syscall.ENOSPC
	}
	f, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return err
	}
	if _, err := f.WriteAt(data, 0); err != nil {
		f.Close()
		return err
	}
	if err := f.Truncate(int64(len(data))); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
