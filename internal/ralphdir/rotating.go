package ralphdir

import (
	"bytes"
	"fmt"
	"io"
	"os"
)

// rotating is a log written in pieces as they come (live.log) and rotated
// as the rotatedLogs are: before a write would take the file past the
// Dir's limit (SetRotation), NAME becomes NAME.1, …, and the rest goes to
// a new NAME. A piece is cut after its last newline that still fits, so
// that lines stay whole where they can. A write error is kept and
// returned by every later write.
type rotating struct {
	d    *Dir
	name string
	f    *os.File
	size int64
	err  error
	// stuck: a rotation failed, and the file grows on past the limit.
	stuck bool
}

// StartLog starts the log name (live.log) with header as its whole
// content and returns it open for appending, rotated as the rotatedLogs
// are (SetRotation). A plain file of its own is truncated in place (one
// open per call, where an atomic replace costs a temp file, an fsync and a
// rename); anything else in its place (a link, a planted folder, a file
// with another name) is replaced atomically, so that no other file is
// ever written through it.
func (d *Dir) StartLog(name, header string) (io.WriteCloser, error) {
	f, err := d.startLog(name, header)
	if err != nil {
		return nil, err
	}
	return d.newRotating(name, f, int64(len(header))), nil
}

// startLog writes header as the whole of name and opens it for appending.
func (d *Dir) startLog(name, header string) (*os.File, error) {
	if st, err := d.Lstat(name); err == nil && st.Mode().IsRegular() {
		if n, ok := links(st); ok && n == 1 {
			f, err := openNoFollow(d.Path(name), os.O_WRONLY|os.O_TRUNC|os.O_APPEND, 0)
			if err == nil {
				if _, err := f.WriteString(header); err == nil {
					return f, nil
				}
				f.Close()
			}
		}
	}
	if err := d.WriteFile(name, []byte(header)); err != nil {
		return nil, err
	}
	return d.openAppend(name)
}

// newRotating writes name through f, an open appending descriptor of it
// that holds size bytes.
func (d *Dir) newRotating(name string, f *os.File, size int64) *rotating {
	return &rotating{d: d, name: name, f: f, size: size}
}

// Write appends p, rotating the file first whenever it is full.
func (r *rotating) Write(p []byte) (int, error) {
	n := 0
	for len(p) > 0 && r.err == nil {
		k := r.fits(p)
		if k == 0 {
			r.rotate()
			continue
		}
		m, err := r.f.Write(p[:k])
		r.size += int64(m)
		n += m
		p = p[m:]
		if err != nil {
			r.err = fmt.Errorf("write %s: %w", r.d.Path(r.name), err)
		}
	}
	return n, r.err
}

// fits is how much of p goes into the current file: all of it without a
// limit or when it fits, else up to its last newline that fits, else (an
// empty file, a longer line) as much as fits. 0 means rotate first.
func (r *rotating) fits(p []byte) int {
	limit := r.d.rotateAt
	if limit <= 0 || r.stuck || r.size+int64(len(p)) <= limit {
		return len(p)
	}
	room := int(max(limit-r.size, 0))
	if i := bytes.LastIndexByte(p[:room], '\n'); i >= 0 {
		return i + 1
	}
	if r.size == 0 {
		return max(room, 1)
	}
	return 0
}

// rotate shifts the copies one up and starts an empty NAME. When that
// fails it warns once and goes on appending to NAME.
func (r *rotating) rotate() {
	r.f.Close()
	p := r.d.Path(r.name)
	err := r.d.folders("write", r.name)
	if err == nil {
		err = rotateFile(p)
	}
	if err != nil {
		r.stuck = true
		if r.d.firstRotateFailure(p) {
			r.d.warn(err.Error())
		}
		r.f, r.err = r.d.openAppend(r.name)
		return
	}
	r.f, r.err = r.d.Create(r.name)
	r.size = 0
}

// Close closes the current file.
func (r *rotating) Close() error {
	if r.f == nil {
		return nil
	}
	return r.f.Close()
}
