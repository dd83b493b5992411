package ledger

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/gofrs/flock"
	"github.com/ralphloop/ralph_loop/internal/quota"
	"github.com/ralphloop/ralph_loop/internal/ralphdir"
)

// EnvPath is the environment variable that names another ledger file. It
// is read from the person's environment only: no .ralphrc sets it, so no
// repository can point the ledger elsewhere.
const EnvPath = "RALPH_USAGE_LEDGER"

// FileName is the ledger's name in the state folder.
const FileName = "usage-ledger.json"

// Path is the ledger's file: $RALPH_USAGE_LEDGER when set (an absolute
// path), else usage-ledger.json in $XDG_STATE_HOME/ralph_loop/ (an
// absolute $XDG_STATE_HOME; a relative one is ignored, as the XDG
// specification says), else in ~/.local/state/ralph_loop/ (on Windows
// %LOCALAPPDATA%\ralph_loop\).
func Path(getenv func(string) string) (string, error) {
	if p := getenv(EnvPath); p != "" {
		if !filepath.IsAbs(p) {
			return "", fmt.Errorf("%s=%s is not an absolute path; name the ledger file with one", EnvPath, p)
		}
		return filepath.Clean(p), nil
	}
	if s := getenv("XDG_STATE_HOME"); s != "" && filepath.IsAbs(s) {
		return filepath.Join(s, "ralph_loop", FileName), nil
	}
	if runtime.GOOS == "windows" {
		if s := getenv("LOCALAPPDATA"); s != "" && filepath.IsAbs(s) {
			return filepath.Join(s, "ralph_loop", FileName), nil
		}
	}
	home := getenv("HOME")
	if runtime.GOOS == "windows" && home == "" {
		home = getenv("USERPROFILE")
	}
	if home == "" || !filepath.IsAbs(home) {
		return "", fmt.Errorf("no place for the usage ledger: $HOME is not set; set %s to a file of yours", EnvPath)
	}
	return filepath.Join(home, ".local", "state", "ralph_loop", FileName), nil
}

// The ledger's bounds: the largest file read (the Book is bounded far
// below it), and how long an update waits for another process's lock.
const (
	maxSize  = 4 << 20
	lockWait = 2 * time.Second
	lockGap  = 5 * time.Millisecond
)

// File is the ledger: one JSON file (a quota.Book) shared by every
// ralph_loop of the person on the machine, and a lock file beside it.
//
//   - Update holds an exclusive flock on NAME.lock while it reads the
//     book, changes it and writes it back; the kernel drops the lock of a
//     process that dies, so a crashed run never keeps it. A lock held
//     longer than lockWait (a process stopped mid-update) is an error
//     naming its holder; the caller goes on without the ledger.
//   - The book is written whole, atomically (a temp file in the same
//     folder, fsynced, renamed over it): a reader, and a run after a
//     crash or a power loss, sees the old book or the new one.
//   - No link is followed: a ledger (or lock) that is a symbolic link, or
//     anything but a regular file, is moved aside, never opened; so is a
//     ledger that is not JSON or over maxSize, each with one warning. A
//     ledger of another user is refused, and one of a later format left
//     alone.
type File struct {
	path string
	warn func(string)
	now  func() time.Time
}

// Open is the ledger at path; warn says one line about a ledger moved
// aside.
func Open(path string, warn func(string), now func() time.Time) *File {
	if warn == nil {
		warn = func(string) {}
	}
	return &File{path: path, warn: warn, now: now}
}

// Path is the ledger's file.
func (f *File) Path() string { return f.path }

// LockedError says another process holds the ledger's lock.
type LockedError struct {
	Path string
	PID  int // as the holder wrote it; 0 when not known
}

func (e *LockedError) Error() string {
	who := "another process"
	if e.PID > 0 {
		who = "process " + strconv.Itoa(e.PID)
	}
	return fmt.Sprintf("the usage ledger %s is locked by %s for more than %s", e.Path, who, lockWait)
}

// Update reads the book under the lock, lets change change it and writes
// it back. The book change gets is never nil. A book that cannot be read
// is an error and nothing is written.
func (f *File) Update(change func(*quota.Book)) (*quota.Book, error) {
	dir := filepath.Dir(f.path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("usage ledger: %w", err)
	}
	unlock, err := f.lock()
	if err != nil {
		return nil, err
	}
	defer unlock()
	f.cleanTemp()
	b, old, err := f.read(true)
	if err != nil {
		return nil, err
	}
	change(b)
	data, err := json.Marshal(b)
	if err != nil {
		return nil, fmt.Errorf("usage ledger %s: %w", f.path, err)
	}
	data = append(data, '\n')
	if bytes.Equal(data, old) {
		return b, nil // nothing changed: nothing to write
	}
	if err := ralphdir.WriteFileAtomic(f.path, data, 0o600); err != nil {
		return nil, fmt.Errorf("usage ledger: %w", err)
	}
	return b, nil
}

// Peek reads the book without the lock (a whole file is always there to
// read) and changes nothing on disk: a damaged ledger is an error, left
// where it is. A ledger not yet written is an empty book.
func (f *File) Peek() (*quota.Book, error) {
	b, _, err := f.read(false)
	return b, err
}

// read reads the book, and the bytes it was read from; with repair, a
// file that is not a ledger is moved aside (one warning) and an empty book
// returned.
func (f *File) read(repair bool) (*quota.Book, []byte, error) {
	b := &quota.Book{Version: quota.Version}
	if err := owned(f.path); err != nil {
		return nil, nil, err
	}
	data, err := ralphdir.ReadFileNoFollow(f.path, maxSize)
	if errors.Is(err, fs.ErrNotExist) {
		return b, nil, nil
	}
	var fe *ralphdir.FileError
	if errors.As(err, &fe) {
		return f.damaged(repair, b, strings.TrimPrefix(fe.Problem, "is "))
	}
	if err != nil {
		return nil, nil, fmt.Errorf("usage ledger: %w", err)
	}
	var v struct {
		Version int `json:"version"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return f.damaged(repair, b, "not valid JSON ("+err.Error()+")")
	}
	if v.Version > quota.Version {
		return nil, nil, fmt.Errorf("the usage ledger %s is of format %d, written by a later ralph_loop; this one reads format %d (leave it to the later one, or set %s to another file)",
			f.path, v.Version, quota.Version, EnvPath)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(b); err != nil || v.Version < 1 {
		why := "not a usage ledger"
		if err != nil {
			why = "not a usage ledger (" + err.Error() + ")"
		}
		return f.damaged(repair, &quota.Book{Version: quota.Version}, why)
	}
	return b, data, nil
}

// damaged is a ledger file that is not one: moved aside when repairing,
// else an error.
func (f *File) damaged(repair bool, empty *quota.Book, why string) (*quota.Book, []byte, error) {
	if !repair {
		return nil, nil, fmt.Errorf("the usage ledger %s is %s", f.path, why)
	}
	aside := f.aside()
	if err := os.Rename(f.path, aside); err != nil {
		return nil, nil, fmt.Errorf("the usage ledger %s is %s and cannot be moved aside: %w", f.path, why, err)
	}
	f.warn(fmt.Sprintf("the usage ledger %s was %s; moved it to %s and started a new one", f.path, why, filepath.Base(aside)))
	return empty, nil, nil
}

// aside is the name a damaged ledger is moved to: NAME.corrupt-YYYYMMDD-HHMMSS
// (-2, -3 … when taken).
func (f *File) aside() string {
	base := f.path + ".corrupt-" + f.now().Format("20060102-150405")
	p := base
	for i := 2; ; i++ {
		if _, err := os.Lstat(p); errors.Is(err, fs.ErrNotExist) {
			return p
		}
		p = base + "-" + strconv.Itoa(i)
	}
}

// lock takes the lock file's flock, waiting up to lockWait, and writes
// this process's pid into it (for the message another one shows).
func (f *File) lock() (func(), error) {
	p := f.path + ".lock"
	if st, err := os.Lstat(p); err == nil && !st.Mode().IsRegular() {
		// A link (or anything else) in its place is moved aside, never
		// opened: the lock file is ours alone.
		aside := p + ".corrupt-" + f.now().Format("20060102-150405")
		if err := os.Rename(p, aside); err != nil {
			return nil, fmt.Errorf("the usage ledger's lock %s is not a regular file and cannot be moved aside: %w", p, err)
		}
		f.warn(fmt.Sprintf("the usage ledger's lock %s was not a regular file; moved it to %s", p, filepath.Base(aside)))
	}
	if err := owned(p); err != nil {
		return nil, err
	}
	fl := flock.New(p, flock.SetFlag(os.O_CREATE|os.O_RDWR|noFollow), flock.SetPermissions(0o600))
	deadline := time.Now().Add(lockWait)
	for {
		ok, err := fl.TryLock()
		if err != nil {
			return nil, fmt.Errorf("lock the usage ledger %s: %w", p, err)
		}
		if ok {
			break
		}
		if time.Now().After(deadline) {
			return nil, &LockedError{Path: f.path, PID: lockPID(p)}
		}
		time.Sleep(lockGap)
	}
	if w, err := os.OpenFile(p, os.O_WRONLY|os.O_TRUNC|noFollow, 0o600); err == nil {
		fmt.Fprintf(w, "%d\n", os.Getpid())
		w.Close()
	}
	return func() { fl.Unlock() }, nil
}

// lockPID is the pid written in the lock file, 0 when none.
func lockPID(p string) int {
	b, err := ralphdir.ReadFileNoFollow(p, 64)
	if err != nil {
		return 0
	}
	n, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	return n
}

// cleanTemp removes the temp files of a writer that died mid-write: no
// one else writes while the lock is held.
func (f *File) cleanTemp() {
	matches, _ := filepath.Glob(filepath.Join(filepath.Dir(f.path), "."+filepath.Base(f.path)+".tmp-*"))
	for _, m := range matches {
		os.Remove(m)
	}
}
