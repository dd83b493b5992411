package ralphdir

import (
	"os"

	"github.com/gofrs/flock"
)

// LockHolder reports whether another process holds the project's lock,
// without taking it for longer than the test and without creating or
// writing the lock file: nil when the lock is free (or was never taken).
func (d *Dir) LockHolder() *LockedError {
	p := d.Path(LockFile)
	if st, err := os.Lstat(p); err != nil || !st.Mode().IsRegular() {
		return nil
	}
	fl := flock.New(p, flock.SetFlag(os.O_RDONLY))
	ok, err := fl.TryLock()
	if err != nil {
		return nil
	}
	if ok {
		fl.Unlock()
		return nil
	}
	return &LockedError{Path: p, PID: lockPID(p)}
}
