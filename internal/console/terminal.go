package console

import (
	"io"
	"sync"
	"time"

	"github.com/ralphloop/ralph_loop/internal/safetext"
)

// Terminal is the one writer of the program's stdout and stderr while the
// loop runs: boxes, the live stream, log lines, the countdown and the stop
// notice all go through one queue, in the order they were written, so a
// line on one stream can never overtake (or be glued to) a line on the
// other. A redrawn line (the countdown) is always ended before anything
// else is printed: erased with "\r\033[K" when its stream is a terminal,
// ended with "\n" otherwise; and on a terminal, output left mid-line on one
// stream is ended with "\n" before a line goes to the other.
//
// It never blocks its caller and never fails: when the queue is full
// (nobody drains the pipe: bmalph's dashboard leaves the loop's pipes
// undrained and closes them on detach) writes are dropped, and a stream is
// dropped after its first write error (EPIPE); the loop goes on regardless.
type Terminal struct {
	ch     chan termItem
	done   chan struct{}
	mu     sync.Mutex
	closed bool

	// Owned by the copier goroutine.
	outs    [2]io.Writer
	tty     [2]bool
	dead    [2]bool
	midLine [2]bool // the last byte written was not a newline
	redrawn int     // stream holding a pending redrawn line, or -1
}

type termKind uint8

const (
	termWrite termKind = iota
	termRedraw
	termEndRedraw
	termClearRedraw
)

type termItem struct {
	stream int
	kind   termKind
	data   []byte
}

// Streams of a Terminal.
const (
	stdoutStream = 0
	stderrStream = 1
)

// NewTerminal starts the copier for stdout and stderr; outTTY and errTTY
// say which of them is a terminal. queue is how many writes may wait.
func NewTerminal(stdout, stderr io.Writer, outTTY, errTTY bool, queue int) *Terminal {
	t := &Terminal{
		ch:      make(chan termItem, queue),
		done:    make(chan struct{}),
		outs:    [2]io.Writer{stdout, stderr},
		tty:     [2]bool{outTTY, errTTY},
		redrawn: -1,
	}
	go t.copy()
	return t
}

// Stdout and Stderr are the writers for the two streams. Each also
// redraws a line in place (redrawing), which the console's countdown uses.
func (t *Terminal) Stdout() io.Writer { return t.stream(stdoutStream) }
func (t *Terminal) Stderr() io.Writer { return t.stream(stderrStream) }

func (t *Terminal) stream(s int) *termStream { return &termStream{t, s} }

func (t *Terminal) put(it termItem) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return
	}
	select {
	case t.ch <- it:
	default: // nobody drains the pipe: drop rather than block the loop
	}
}

func (t *Terminal) copy() {
	defer close(t.done)
	for it := range t.ch {
		switch it.kind {
		case termRedraw:
			if t.redrawn < 0 {
				t.endMidLine(-1)
			} else if t.redrawn != it.stream {
				t.endRedrawn(false)
			}
			t.write(it.stream, append([]byte("\r"), it.data...))
			t.redrawn = it.stream
			t.midLine[it.stream] = false
		case termEndRedraw:
			t.endRedrawn(true)
		case termClearRedraw:
			t.clearRedrawn()
		default:
			t.endRedrawn(false)
			t.endMidLine(it.stream)
			t.write(it.stream, it.data)
			if n := len(it.data); n > 0 {
				t.midLine[it.stream] = it.data[n-1] != '\n'
			}
		}
	}
}

// endRedrawn ends a pending redrawn line: keep leaves it on screen (the
// wait is over), otherwise it is erased on a terminal.
func (t *Terminal) endRedrawn(keep bool) {
	s := t.redrawn
	if s < 0 {
		return
	}
	t.redrawn = -1
	if t.tty[s] && !keep {
		t.write(s, []byte("\r\033[K"))
		return
	}
	t.write(s, []byte("\n"))
}

// endMidLine ends output left mid-line on a terminal stream other than
// next (-1: any), so that what comes next starts on a line of its own.
func (t *Terminal) endMidLine(next int) {
	for s := range t.outs {
		if s != next && t.tty[s] && t.midLine[s] {
			t.write(s, []byte("\n"))
			t.midLine[s] = false
		}
	}
}

func (t *Terminal) write(s int, p []byte) {
	if t.dead[s] || len(p) == 0 {
		return
	}
	if _, err := t.outs[s].Write(p); err != nil {
		t.dead[s] = true
	}
}

// Close stops accepting writes, ends a pending redrawn line and waits up
// to timeout for the queue to drain; an undrained pipe cannot hold the
// loop's exit.
func (t *Terminal) Close(timeout time.Duration) {
	t.put(termItem{kind: termEndRedraw})
	t.mu.Lock()
	if !t.closed {
		t.closed = true
		close(t.ch)
	}
	t.mu.Unlock()
	select {
	case <-t.done:
	case <-time.After(timeout):
	}
}

// redrawing is a console that can show a line redrawn in place (a
// countdown). Every other write ends it first.
type redrawing interface {
	// Redraw replaces the pending redrawn line with line.
	Redraw(line string)
	// EndRedraw ends the pending redrawn line, leaving it on screen.
	EndRedraw()
}

// termStream is one stream of a Terminal: an io.Writer that never blocks
// and never fails, and a redrawing.
type termStream struct {
	t      *Terminal
	stream int
}

// Write queues p, made safe as safetext.Colour makes it (each write
// whole): nothing written to the terminal but the Terminal's own line
// endings and erasures acts on it, except colours. It always reports
// success.
func (s *termStream) Write(p []byte) (int, error) {
	s.t.put(termItem{stream: s.stream, kind: termWrite, data: []byte(safetext.Colour(string(p)))})
	return len(p), nil
}

// Redraw implements redrawing: line, made safe as a write is, is drawn
// after a carriage return, with the rest of the screen line cleared.
func (s *termStream) Redraw(line string) {
	s.t.put(termItem{stream: s.stream, kind: termRedraw, data: []byte(safetext.Colour(line) + "\033[K")})
}

// EndRedraw implements redrawing.
func (s *termStream) EndRedraw() { s.t.put(termItem{stream: s.stream, kind: termEndRedraw}) }

// clearRedrawn erases the pending redrawn line on a terminal (elsewhere a
// redrawn line is never drawn in place, so it is ended as usual).
func (t *Terminal) clearRedrawn() {
	s := t.redrawn
	if s < 0 {
		return
	}
	if !t.tty[s] {
		t.endRedrawn(true)
		return
	}
	t.redrawn = -1
	t.write(s, []byte(eraseLine))
	t.midLine[s] = false
}
