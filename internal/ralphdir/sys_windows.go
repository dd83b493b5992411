package ralphdir

import (
	"errors"
	"io/fs"
	"os"
	"syscall"

	"golang.org/x/sys/windows"
)

// openNoFollow opens path with flag, refusing a symbolic link in its last
// component (the error then wraps syscall.ELOOP). Windows has no
// O_NOFOLLOW: the name is checked with Lstat just before it is opened.
// Creating a link there needs administrator rights or developer mode,
// which is what closes the gap between the check and the open.
func openNoFollow(path string, flag int, perm fs.FileMode) (*os.File, error) {
	if st, err := os.Lstat(path); err == nil && st.Mode()&fs.ModeSymlink != 0 {
		return nil, &fs.PathError{Op: "open", Path: path, Err: syscall.ELOOP}
	}
	return os.OpenFile(path, flag|syscall.O_CLOEXEC, perm)
}

// links is the number of names fi's file has. An open file cannot lose its
// name on Windows (Go opens files without FILE_SHARE_DELETE), so a file
// that exists has one.
func links(fs.FileInfo) (n uint64, ok bool) { return 1, true }

// allocated is unknown on Windows: a full disk is not worked around.
func allocated(fs.FileInfo) (int64, bool) { return 0, false }

// noSpace reports a full disk or quota.
func noSpace(err error) bool {
	return errors.Is(err, windows.ERROR_DISK_FULL) || errors.Is(err, windows.ERROR_HANDLE_DISK_FULL) ||
		errors.Is(err, windows.ERROR_DISK_QUOTA_EXCEEDED) || errors.Is(err, syscall.ENOSPC)
}

// tryLock takes an exclusive lock on f's first byte without waiting, as
// gofrs/flock locks it; held is true when another handle holds it.
func tryLock(f *os.File) (held bool, err error) {
	err = windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, &windows.Overlapped{})
	if errors.Is(err, windows.ERROR_LOCK_VIOLATION) || errors.Is(err, windows.ERROR_IO_PENDING) {
		return true, nil
	}
	return false, err
}

// lockWait takes tryLock's lock, waiting for it.
func lockWait(f *os.File) error {
	return windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK, 0, 1, 0, &windows.Overlapped{})
}

// unlock releases tryLock's lock.
func unlock(f *os.File) error {
	return windows.UnlockFileEx(windows.Handle(f.Fd()), 0, 1, 0, &windows.Overlapped{})
}
