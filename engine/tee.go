package engine

import (
	"bytes"
	"io"
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
	for _, b := range p {
		if b == '\n' {
			if len(bytes.TrimSpace(t.cur)) > 0 {
				t.last = append(t.last[:0], t.cur...)
			}
			t.cur = t.cur[:0]
			continue
		}
		if len(t.cur) < 4096 {
			t.cur = append(t.cur, b)
		}
	}
	return len(p), nil
}

func (t *lastLine) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(bytes.TrimSpace(t.cur)) > 0 {
		return string(t.cur)
	}
	return string(t.last)
}
