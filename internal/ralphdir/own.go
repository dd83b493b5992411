package ralphdir

import (
	"fmt"
	"io/fs"
	"os"
)

// Files a program keeps for itself outside .ralph/ (--swarm's .swarm/:
// its lock files, state, logs and scratch folder) are the repository's
// too: a clone can bring any of them as a link, a named pipe or a hard
// link. NotOwn says whether one is what the program would have made, and
// LockPath opens a lock file as AppendLine opens a log.

// NotOwn says what the entry at p is when it is not what a program makes
// for itself: a regular file with one name (folder false) or a real
// folder (folder true). It is "" when it is, or when nothing is there; a
// link is described with its target ("is a symbolic link to /etc/x").
func NotOwn(p string, folder bool) string {
	st, err := os.Lstat(p)
	if err != nil {
		return ""
	}
	m := st.Mode()
	switch {
	case m&fs.ModeSymlink != 0:
		return "is a symbolic link to " + quoteTarget(linkTarget(p))
	case folder && !m.IsDir():
		if m.IsRegular() {
			return "is a file, not a folder"
		}
		return Kind(m)
	case folder:
		return ""
	case !m.IsRegular():
		return Kind(m)
	}
	if n, ok := links(st); ok && n > 1 {
		return fmt.Sprintf("is a file with %d names (a hard link)", n)
	}
	return ""
}

// FileLock is an exclusive lock LockPath took.
type FileLock struct{ f *os.File }

// LockPath takes an exclusive lock on the file at path, creating it when
// missing. The file is opened without following a link and without
// blocking, and must be a regular file with one name: a link, a named
// pipe, a device or a hard link in its place is a *FileError and nothing
// is created or opened through it (gofrs/flock would create a link's
// target). With wait set it waits for the lock; otherwise held is true
// when another process holds it.
func LockPath(path string, wait bool) (l *FileLock, held bool, err error) {
	const fix = "it is not the lock file ralph_loop made; remove it"
	f, err := openWrite("lock", path, os.O_RDWR|os.O_CREATE, fix)
	if err != nil {
		return nil, false, err
	}
	if st, err := f.Stat(); err == nil {
		if n, ok := links(st); ok && n > 1 {
			f.Close()
			return nil, false, &FileError{Op: "lock", Path: path, Problem: fmt.Sprintf("is a file with %d names (a hard link)", n), Fix: fix}
		}
	}
	if wait {
		err = lockWait(f)
	} else {
		held, err = tryLock(f)
	}
	if held || err != nil {
		f.Close()
		if err != nil {
			err = fmt.Errorf("lock %s: %w", path, err)
		}
		return nil, held, err
	}
	return &FileLock{f: f}, false, nil
}

// Unlock releases the lock and closes the file.
func (l *FileLock) Unlock() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := unlock(l.f)
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	return err
}
