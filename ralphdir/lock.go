package ralphdir

import (
	"fmt"
	"os"
	"strconv"
	"strings"

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

// Lock takes .ralph/.ralph_loop.lock without waiting. When another process
// holds it the error is a *LockedError. The lock file is never deleted (that
// would let two processes lock two different files); the holder's pid is
// written into it for the message.
func (d *Dir) Lock() (*Lock, error) {
	p := d.Path(LockFile)
	if err := os.MkdirAll(d.root, 0o755); err != nil {
		return nil, fmt.Errorf("lock %s: %w", p, err)
	}
	fl := flock.New(p)
	ok, err := fl.TryLock()
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", p, err)
	}
	if !ok {
		pid := 0
		if b, err := os.ReadFile(p); err == nil {
			pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		}
		return nil, &LockedError{Path: p, PID: pid}
	}
	// The pid is informational; write it in place (the file is ours while locked).
	if f, err := os.OpenFile(p, os.O_WRONLY|os.O_TRUNC, 0o644); err == nil {
		fmt.Fprintf(f, "%d\n", os.Getpid())
		f.Close()
	}
	return &Lock{fl: fl}, nil
}

// Unlock releases the lock.
func (l *Lock) Unlock() error {
	if l == nil || l.fl == nil {
		return nil
	}
	return l.fl.Unlock()
}
