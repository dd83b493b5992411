package ralphdir

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
)

// appends holds the logs AppendLine writes to open for the Dir's life: the
// loop appends some twenty lines an iteration (ralph.log, the event
// stream, metrics), and an open and a close for each cost more than the
// write. A held file is checked before each write: once it has no name
// left (removed, or replaced by another file, a link for example) it is
// closed and the name opened again, with the same checks as the first
// time, so that nothing is ever written through a link. The descriptors
// close with the process (or when the Dir is dropped, as os.File does).
type appends struct {
	mu   sync.Mutex
	open map[string]*os.File
}

// write appends line to the file at p (name inside the Dir), opening it
// when it is not held or no longer named. A rotation that fails leaves the
// line in the current file and returns why (rotErr), for a warning that
// the caller gives outside the lock.
func (a *appends) write(d *Dir, name, p, line string) (rotErr, err error) {
	if a == nil { // a Dir not made by New: open and close each time
		a = &appends{}
		defer a.closeAll()
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	f, err := a.file(d, name, p)
	if err != nil {
		return nil, err
	}
	if f, rotErr, err = a.rotate(d, name, p, f, len(line)); err != nil {
		return rotErr, err
	}
	if _, err := f.WriteString(line); err != nil {
		f.Close()
		delete(a.open, p)
		return rotErr, fmt.Errorf("append %s: %w", p, err)
	}
	return rotErr, nil
}

// rotate rotates the held file f of p when a line of n bytes would take it
// past the Dir's limit, and returns the file to write to: the new one, or
// the old one again when the rotation failed (rotErr).
func (a *appends) rotate(d *Dir, name, p string, f *os.File, n int) (_ *os.File, rotErr, err error) {
	if d.rotateAt <= 0 {
		return f, nil, nil
	}
	st, err := f.Stat()
	if err != nil || !d.rotates(name, st.Size(), n) {
		return f, nil, nil
	}
	f.Close()
	delete(a.open, p)
	rotErr = rotateFile(p)
	f, err = a.file(d, name, p)
	return f, rotErr, err
}

// file returns the held descriptor of p, or opens it.
func (a *appends) file(d *Dir, name, p string) (*os.File, error) {
	if f := a.open[p]; f != nil {
		if st, err := f.Stat(); err == nil {
			if n, ok := links(st); ok && n > 0 {
				return f, nil
			}
		}
		f.Close()
		delete(a.open, p)
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return nil, fmt.Errorf("append %s: %w", p, err)
	}
	f, err := d.openAppend(name)
	if err != nil {
		return nil, err
	}
	if a.open == nil {
		a.open = map[string]*os.File{}
	}
	a.open[p] = f
	return f, nil
}

// closeAll closes every held file.
func (a *appends) closeAll() {
	a.mu.Lock()
	defer a.mu.Unlock()
	for p, f := range a.open {
		f.Close()
		delete(a.open, p)
	}
}
