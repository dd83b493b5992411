package ralphdir

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"sync"
	"syscall"
)

// Size limits for files read from the project. A repository may hold
// anything under these names (a link to /dev/zero, a named pipe, a huge
// file), so every read opens without blocking, checks for a regular file and
// stops at the limit. docs/DESIGN.md ("Files and safety") lists them.
const (
	// StateCap bounds .ralphrc and every state and history file.
	StateCap = 1 << 20
	// TextCap bounds PROMPT.md, @fix_plan.md and the other prompt inputs.
	TextCap = 16 << 20
	// LogCap bounds an agent output log read back whole (stream collapse,
	// review findings).
	LogCap = 64 << 20
)

// FileError says a project file is not one ralph_loop will read or write:
// not a regular file, a link where it writes, or over its size limit. Its
// message names the path once and says what to do.
type FileError struct {
	Op      string // read, append, write
	Path    string
	Problem string // "is a named pipe (FIFO), not a regular file"
	Fix     string
}

func (e *FileError) Error() string {
	return fmt.Sprintf("%s %s: %s; %s", e.Op, e.Path, e.Problem, e.Fix)
}

// isFileError reports whether err is (or wraps) a *FileError.
func isFileError(err error) bool {
	var fe *FileError
	return errors.As(err, &fe)
}

// Kind words a file type that is not a regular file ("is a named pipe
// (FIFO), not a regular file").
func Kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "is a symbolic link"
	case m.IsDir():
		return "is a directory, not a regular file"
	case m&fs.ModeNamedPipe != 0:
		return "is a named pipe (FIFO), not a regular file"
	case m&fs.ModeSocket != 0:
		return "is a socket, not a regular file"
	case m&fs.ModeDevice != 0:
		return "is a device, not a regular file"
	default:
		return "is not a regular file"
	}
}

// sizeName renders a limit for messages ("1 MiB").
func sizeName(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// ReadFileCapped returns the content of the regular file at path, which may
// hold at most limit bytes. The file is opened without blocking (a named
// pipe with no writer cannot hang the loop) and checked with fstat before a
// byte is read; a link is followed, but only to a regular file. A file that
// does not exist gives an error matching fs.ErrNotExist; a file that is not
// regular or is over the limit gives a *FileError. Errors name path once.
func ReadFileCapped(path string, limit int64) ([]byte, error) {
	return readCapped(path, limit, true)
}

// ReadFileNoLink is ReadFileCapped, except that a link at path is refused
// (a *FileError), not followed.
func ReadFileNoLink(path string, limit int64) ([]byte, error) {
	return readCapped(path, limit, false)
}

// readCapped is ReadFileCapped; with follow unset a link at path is
// refused with a *FileError instead of followed.
func readCapped(path string, limit int64, follow bool) ([]byte, error) {
	f, st, err := openRegular(path, follow)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	tooBig := func(size int64) error {
		return &FileError{Op: "read", Path: path,
			Problem: fmt.Sprintf("is %d bytes, over the %s limit", size, sizeName(limit)),
			Fix:     "shorten it or move it aside"}
	}
	if st.Size() > limit {
		return nil, tooBig(st.Size())
	}
	// The file may grow while it is read: stop one byte past the limit.
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, tooBig(int64(len(data)))
	}
	return data, nil
}

// ReadConfig reads a .ralphrc: ReadFileCapped with StateCap, except that a
// link is refused, not followed (a *FileError): the .ralphrc is the
// repository's, and one linked to a file elsewhere would be read and
// quoted in warnings.
func ReadConfig(path string) ([]byte, error) { return readCapped(path, StateCap, false) }

// openRegular opens path for reading without blocking (a named pipe with no
// writer cannot hang the loop) and checks with fstat, before a byte is
// read, that it is a regular file. With follow unset a link at path is a
// *FileError (its target is never opened).
func openRegular(path string, follow bool) (*os.File, fs.FileInfo, error) {
	var f *os.File
	var err error
	if follow {
		f, err = os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	} else {
		f, err = openNoFollow(path, os.O_RDONLY, 0)
	}
	if err != nil {
		if !follow && errors.Is(err, syscall.ELOOP) {
			return nil, nil, &FileError{Op: "read", Path: path, Problem: "is a symbolic link to " + quoteTarget(linkTarget(path)),
				Fix: "ralph_loop follows no link the repository holds; replace it with a regular file"}
		}
		if errors.Is(err, syscall.ENXIO) || errors.Is(err, syscall.EOPNOTSUPP) {
			// a socket: opening one fails
			return nil, nil, &FileError{Op: "read", Path: path, Problem: "is a socket, not a regular file", Fix: "replace it with a regular file"}
		}
		return nil, nil, err // *PathError: "open PATH: reason"
	}
	return onlyRegular(f, "read", path, "replace it with a regular file")
}

// capFor is the size limit of a file under .ralph/.
func capFor(name string) int64 {
	switch {
	case name == Prompt || name == FixPlan || name == Agent || name == ReviewPrompt || strings.HasPrefix(name, Specs+"/"):
		return TextCap
	case strings.HasPrefix(name, LogsDir+"/"):
		return LogCap
	}
	return StateCap
}

// refusals remembers the paths a write was refused for, so each is
// reported once.
type refusals struct {
	mu   sync.Mutex
	seen map[string]bool
}

// first reports whether path is refused for the first time.
func (r *refusals) first(path string) bool {
	if r == nil {
		return true
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.seen[path] {
		return false
	}
	if r.seen == nil {
		r.seen = map[string]bool{}
	}
	r.seen[path] = true
	return true
}

// openWrite opens path for writing with flag (plus O_NOFOLLOW and
// O_NONBLOCK), refusing a link in the last component and anything but a
// regular file, without ever blocking on a named pipe. It returns a
// *FileError for such a file.
func openWrite(op, path string, flag int, fix string) (*os.File, error) {
	f, err := openNoFollow(path, flag, 0o644)
	if err != nil {
		var problem string
		switch {
		case errors.Is(err, syscall.ELOOP):
			problem = "is a symbolic link"
		case errors.Is(err, syscall.ENXIO):
			problem = "is a named pipe (FIFO) or socket, not a regular file"
		case errors.Is(err, syscall.EISDIR):
			problem = "is a directory, not a regular file"
		default:
			return nil, err
		}
		return nil, &FileError{Op: op, Path: path, Problem: problem, Fix: fix}
	}
	f, _, err = onlyRegular(f, op, path, fix)
	return f, err
}

// onlyRegular returns f if it is an open regular file; otherwise it closes
// f and says what the file is instead.
func onlyRegular(f *os.File, op, path, fix string) (*os.File, fs.FileInfo, error) {
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, nil, &FileError{Op: op, Path: path, Problem: Kind(st.Mode()), Fix: fix}
	}
	return f, st, nil
}

// openAppend opens name for appending (creating it), refusing a link, a
// named pipe or any other non-regular file with a *FileError: the link's
// target is never written.
func (d *Dir) openAppend(name string) (*os.File, error) {
	p, err := d.checked("write", name)
	if err != nil {
		return nil, err
	}
	return openWrite("append", p, os.O_WRONLY|os.O_APPEND|os.O_CREATE,
		"not appending to it, and the loop goes on; remove it to get this log back")
}

// Create creates or truncates name for writing (an agent's output log). A
// link or another non-regular file in its place (planted in the
// repository) is removed with a warning and a fresh file is created: the
// link's target is never written.
func (d *Dir) Create(name string) (*os.File, error) {
	p, err := d.checked("write", name)
	if err != nil {
		return nil, err
	}
	const fix = "ralph_loop writes only regular files inside .ralph/; remove it"
	f, err := openWrite("write", p, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, fix)
	var fe *FileError
	if !errors.As(err, &fe) {
		return f, err
	}
	if rerr := os.Remove(p); rerr != nil {
		return nil, fe
	}
	d.warn(fmt.Sprintf("%s %s; removed it and created a regular file", p, strings.TrimSuffix(fe.Problem, ", not a regular file")))
	return openWrite("write", p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, fix)
}
