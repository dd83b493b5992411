package ralphdir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/gofrs/flock"
)

// LockedError says another ralph_loop holds the project's lock.
type LockedError struct {
	Path string
	PID  int // the holder's pid as it wrote it, 0 when unknown
}

func (e *LockedError) Error() string {
	who := "another ralph_loop"
	if e.PID > 0 {
		who = fmt.Sprintf("another ralph_loop (pid %d)", e.PID)
	}
	return fmt.Sprintf("%s is already running in this project (lock %s held); stop it first, or use --status to watch it", who, e.Path)
}

// Lock holds the project's single-instance lock.
type Lock struct{ fl *flock.Flock }

// Lock takes .ralph/logs/.ralph_loop.lock without waiting (under logs/,
// which bmalph's .gitignore hides, so the lock never shows in git status).
// When another process holds it the error is a *LockedError. The lock file
// is never deleted (that would let two processes lock two different files);
// the holder's pid is written into it for the message. A lock file that an
// older version left at .ralph/.ralph_loop.lock refuses too while its
// holder runs, and is removed once it is free.
func (d *Dir) Lock() (*Lock, error) {
	p, err := d.checked("write", LockFile)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return nil, fmt.Errorf("lock %s: %w", p, err)
	}
	// The lock file is ours: a link or any other non-regular file in its
	// place (planted in the repository) is removed, never opened, so that
	// neither the lock nor the pid written below reaches outside .ralph/.
	if st, err := os.Lstat(p); err == nil && !st.Mode().IsRegular() {
		if err := os.Remove(p); err != nil {
			return nil, fmt.Errorf("lock %s: it %s and cannot be removed: %w (delete it by hand)", p, Kind(st.Mode()), err)
		}
		d.warn(fmt.Sprintf("%s %s; removed it and created a regular lock file", p, strings.TrimSuffix(Kind(st.Mode()), ", not a regular file")))
	}
	fl := flock.New(p)
	ok, err := takeLock(fl)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", p, err)
	}
	if !ok {
		return nil, &LockedError{Path: p, PID: lockPID(p)}
	}
	if err := d.dropOldLock(); err != nil {
		fl.Unlock()
		return nil, err
	}
	// The pid is informational; write it in place (the file is ours while locked).
	if f, err := openNoFollow(p, os.O_WRONLY|os.O_TRUNC, 0o644); err == nil {
		fmt.Fprintf(f, "%d\n", os.Getpid())
		f.Close()
	}
	return &Lock{fl: fl}, nil
}

// lockRetries and lockRetryGap bound how long Lock waits for a lock that
// is held only for a moment: --status, --doctor and the dashboard probe it
// with a non-blocking lock that they release at once, and a loop starting
// in that instant must not take them for another loop.
const (
	lockRetries  = 20
	lockRetryGap = 10 * time.Millisecond
)

func takeLock(fl *flock.Flock) (bool, error) {
	for i := 0; ; i++ {
		ok, err := fl.TryLock()
		if ok || err != nil || i == lockRetries {
			return ok, err
		}
		time.Sleep(lockRetryGap)
	}
}

// dropOldLock removes the lock file of an older version, unless a loop of
// that version still holds it.
func (d *Dir) dropOldLock() error {
	old := d.Path(oldLockFile)
	st, err := os.Lstat(old)
	if err != nil {
		return nil
	}
	if !st.Mode().IsRegular() { // never a lock of ours: do not open it
		if err := os.Remove(old); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("remove the old lock file %s: %w (delete it by hand)", old, err)
		}
		return nil
	}
	fl := flock.New(old)
	ok, err := fl.TryLock()
	if err != nil || !ok {
		return &LockedError{Path: old, PID: lockPID(old)}
	}
	defer fl.Unlock()
	if err := os.Remove(old); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove the old lock file %s: %w (delete it by hand)", old, err)
	}
	return nil
}

// lockPID is the pid a holder wrote into the lock file at p, 0 when unknown.
func lockPID(p string) int {
	b, err := readCapped(p, 64, false)
	if err != nil {
		return 0
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	return pid
}

// Unlock releases the lock.
func (l *Lock) Unlock() error {
	if l == nil || l.fl == nil {
		return nil
	}
	return l.fl.Unlock()
}
