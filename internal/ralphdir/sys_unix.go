//go:build unix

package ralphdir

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// openNoFollow opens path with flag, without blocking on a named pipe and
// refusing a link in its last component (the error then wraps
// syscall.ELOOP).
func openNoFollow(path string, flag int, perm fs.FileMode) (*os.File, error) {
	return os.OpenFile(path, flag|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, perm)
}

// links is the number of names fi's file has; ok is false when the system
// does not say.
func links(fi fs.FileInfo) (n uint64, ok bool) {
	sys, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return uint64(sys.Nlink), true
}

// allocated is the space the file fi describes holds on disk, in bytes.
func allocated(fi fs.FileInfo) (int64, bool) {
	sys, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int64(sys.Blocks) * 512, true
}

// noSpace reports a full disk or quota.
func noSpace(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT)
}

// tryLock takes an exclusive lock on f without waiting; held is true
// when another open file holds it.
func tryLock(f *os.File) (held bool, err error) {
	err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return true, nil
	}
	return false, err
}

// lockWait takes an exclusive lock on f, waiting for it.
func lockWait(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}

// unlock releases tryLock's lock.
func unlock(f *os.File) error { return syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }
