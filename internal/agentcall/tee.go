package agentcall

import (
	"bytes"
	"errors"
	"io"
	"os"
	"sync"
)

// checked remembers a writer's first error and fails every write after it.
type checked struct {
	mu  sync.Mutex
	w   io.Writer
	err error
}

func (c *checked) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.w.Write(p)
	if err != nil {
		c.err = err
	}
	return n, err
}

func (c *checked) fail(err error) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err == nil {
		c.err = err
	}
	return c.err
}

func (c *checked) error() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// fanout writes to every writer, even after one failed (the console must
// go on showing the stream when a log cannot be written), and reports the
// first error of a writer or of a watched log written through another one.
type fanout struct {
	ws    []io.Writer
	watch []*checked
}

func (f *fanout) Write(p []byte) (int, error) {
	var first error
	for _, w := range f.ws {
		if _, err := w.Write(p); err != nil && first == nil {
			first = err
		}
	}
	for _, c := range f.watch {
		if err := c.error(); err != nil && first == nil {
			first = err
		}
	}
	return len(p), first
}

// lastLine remembers the last non-empty output line (at most 4 KiB of it).
type lastLine struct {
	mu   sync.Mutex
	cur  []byte
	last []byte
}

func (t *lastLine) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := len(p)
	if bytes.IndexByte(p, '\n') < 0 { // most writes of a long line (IndexByte is the quicker)
		t.add(p)
		return n, nil
	}
	i := bytes.LastIndexByte(p, '\n')
	// The lines p ends, the newest first: the first one not blank counts.
	for lines := p[:i]; ; {
		j := bytes.LastIndexByte(lines, '\n')
		if j < 0 { // the first line of p goes on from cur
			t.add(lines)
			if len(bytes.TrimSpace(t.cur)) > 0 {
				t.last = append(t.last[:0], t.cur...)
			}
			break
		}
		if l := lines[j+1:]; len(bytes.TrimSpace(l[:min(len(l), maxLastLine)])) > 0 {
			t.last = append(t.last[:0], l[:min(len(l), maxLastLine)]...)
			break
		}
		lines = lines[:j]
	}
	t.cur = t.cur[:0]
	t.add(p[i+1:])
	return n, nil
}

// add appends to the current line, up to maxLastLine bytes of it.
func (t *lastLine) add(b []byte) {
	t.cur = append(t.cur, b[:min(len(b), maxLastLine-len(t.cur))]...)
}

const maxLastLine = 4096

func (t *lastLine) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(bytes.TrimSpace(t.cur)) > 0 {
		return string(t.cur)
	}
	return string(t.last)
}

// stream copies the agent's stream to its own log and finds the last
// result record, in the pass that writes the output log. Its write errors
// never fail the call: the output log holds the stream anyway.
type stream struct {
	mu     sync.Mutex
	w      io.Writer // nil when the log could not be created
	f      io.Closer
	err    error
	result *resultLine
}

func (s *stream) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.result.Write(p)
	if s.err == nil && s.w != nil {
		if _, err := s.w.Write(p); err != nil {
			s.err = err
		}
	}
	return len(p), nil
}

// Finish writes the log's kept tail and closes it; the error is the
// log's first.
func (s *stream) Finish() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.result.end()
	if s.w != nil {
		if ht, ok := s.w.(io.Closer); ok && s.err == nil { // a supervise.NewHeadTail
			s.err = ht.Close()
		}
		if err := s.f.Close(); err != nil && s.err == nil && !errors.Is(err, os.ErrClosed) {
			s.err = err
		}
		s.w = nil
	}
	return s.err
}

// resultLine remembers the last line holding a "type":"result" record.
// Past limit bytes it gives up (over): such an output is not cut down.
type resultLine struct {
	limit int64
	total int64
	cur   []byte
	last  []byte
	found bool
	over  bool
}

func (r *resultLine) Write(p []byte) {
	if r.over {
		return
	}
	if r.total += int64(len(p)); r.total > r.limit {
		r.over, r.cur, r.last = true, nil, nil
		return
	}
	for {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			r.cur = append(r.cur, p...)
			return
		}
		r.cur = append(r.cur, p[:i]...)
		r.line()
		p = p[i+1:]
	}
}

// end takes the last line, which has no newline.
func (r *resultLine) end() {
	if !r.over {
		r.line()
	}
}

func (r *resultLine) line() {
	if bytes.Contains(r.cur, []byte(`"type":"result"`)) || bytes.Contains(r.cur, []byte(`"type": "result"`)) {
		r.last, r.found = append(r.last[:0], r.cur...), true
	}
	r.cur = r.cur[:0]
}

// Result is the stream's last "type":"result" record (found) once
// Finish has run; over: the stream was too big to look for one.
func (s *stream) Result() (last []byte, found, over bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.result.last, s.result.found, s.result.over
}
