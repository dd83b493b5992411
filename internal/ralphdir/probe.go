package ralphdir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// LockHolder reports whether another ralph_loop holds the project's lock
// (or an older version's lock), without taking it and without creating,
// writing or touching any file: the lock file, when there is one, is opened
// read-only and probed with a non-blocking flock that is released at once.
// It returns nil when no loop holds it.
func (d *Dir) LockHolder() (*LockedError, error) {
	for _, name := range []string{LockFile, oldLockFile} {
		p, err := d.checked("read", name)
		if err != nil {
			return nil, err
		}
		held, err := probeLock(p)
		if err != nil {
			return nil, fmt.Errorf("probe the lock %s: %w", p, err)
		}
		if held {
			return &LockedError{Path: p, PID: lockPID(p)}, nil
		}
	}
	return nil, nil
}

func probeLock(p string) (bool, error) {
	st, err := os.Lstat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if !st.Mode().IsRegular() { // never a lock of ours; the loop replaces it
		return false, nil
	}
	f, err := openNoFollow(p, os.O_RDONLY, 0)
	if err != nil {
		return false, err
	}
	defer f.Close()
	held, err := tryLock(f)
	if held || err != nil {
		return held, err
	}
	return false, unlock(f)
}

// ProbeLock reports whether a process holds the lock file at path (one
// LockPath takes), as LockHolder does for the project's lock: without
// creating or writing anything. A missing file, or one that is not a
// regular file, is no lock held.
func ProbeLock(path string) (bool, error) { return probeLock(path) }
