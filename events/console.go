package events

import (
	"io"
	"sync"
	"time"
)

// LocalStamp is the reference's local "YYYY-MM-DD HH:MM:SS".
const LocalStamp = "2006-01-02 15:04:05"

var colours = map[Level]string{
	Info:    "\033[0;34m",
	Warn:    "\033[1;33m",
	Error:   "\033[0;31m",
	Success: "\033[0;32m",
	LoopLvl: "\033[0;35m",
	Debug:   "",
}

const reset = "\033[0m"

// Console renders log lines for a person: "[stamp] [LEVEL] msg" on w
// (stderr), coloured when colour is true.
type Console struct {
	w      io.Writer
	colour bool
}

// NewConsole returns a console writing to w.
func NewConsole(w io.Writer, colour bool) *Console { return &Console{w: w, colour: colour} }

// Line implements LineSink.
func (c *Console) Line(ts time.Time, level Level, msg string) {
	line := "[" + ts.Local().Format(LocalStamp) + "] [" + string(level) + "] " + msg
	if c.colour {
		line = colours[level] + line + reset
	}
	io.WriteString(c.w, line+"\n")
}

// AsyncWriter is an io.Writer that never blocks its caller and never fails:
// writes are queued and copied to the underlying writer by a goroutine.
// When the queue is full (nobody drains the pipe) writes are dropped; after
// the first write error (the reader went away: EPIPE) everything is
// dropped. bmalph's dashboard leaves the loop's pipes undrained and closes
// them on detach; the loop must go on regardless.
type AsyncWriter struct {
	ch     chan []byte
	done   chan struct{}
	mu     sync.Mutex
	dead   bool
	closed bool
	// Dropped counts bytes that were not written.
	dropped int64
}

// NewAsyncWriter starts the copier. queue is how many writes may wait.
func NewAsyncWriter(w io.Writer, queue int) *AsyncWriter {
	a := &AsyncWriter{ch: make(chan []byte, queue), done: make(chan struct{})}
	go func() {
		defer close(a.done)
		for p := range a.ch {
			if a.isDead() {
				continue
			}
			if _, err := w.Write(p); err != nil {
				a.mu.Lock()
				a.dead = true
				a.mu.Unlock()
			}
		}
	}()
	return a
}

func (a *AsyncWriter) isDead() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.dead
}

// Write queues p; it always reports success.
func (a *AsyncWriter) Write(p []byte) (int, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.dead || a.closed {
		return len(p), nil
	}
	select {
	case a.ch <- append([]byte(nil), p...):
	default:
		a.dropped += int64(len(p))
	}
	return len(p), nil
}

// Close stops accepting writes and waits up to timeout for the queue to
// drain; an undrained pipe cannot hold the loop's exit.
func (a *AsyncWriter) Close(timeout time.Duration) {
	a.mu.Lock()
	if !a.closed {
		a.closed = true
		close(a.ch)
	}
	a.mu.Unlock()
	select {
	case <-a.done:
	case <-time.After(timeout):
	}
}
