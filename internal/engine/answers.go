package engine

import (
	"bufio"
	"context"
	"io"
	"strings"
	"sync"
	"time"
)

// answers reads the person's answers to the loop's questions from stdin,
// one line per answer, with one goroutine for the whole run. A question
// that times out leaves that goroutine waiting, so the line typed next is
// the next question's answer, never read and dropped by a reader abandoned
// earlier. Lines typed while no question waits are kept for the next one,
// as a terminal keeps what was typed ahead of the bash loop's read.
type answers struct {
	in    io.Reader
	once  sync.Once
	lines chan string // closed at the end of input
}

func newAnswers(in io.Reader) *answers {
	return &answers{in: in, lines: make(chan string)}
}

// next waits up to timeout for the next line, without its line end and
// surrounding blanks. answered is false when the time passed or ctx ended
// first; at the end of input next returns "" and true at once.
func (a *answers) next(ctx context.Context, timeout time.Duration) (line string, answered bool) {
	a.once.Do(func() { go a.read() })
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case line := <-a.lines:
		return line, true
	case <-t.C:
	case <-ctx.Done():
	}
	return "", false
}

// read hands each line of input to the question waiting for it.
func (a *answers) read() {
	r := bufio.NewReader(a.in)
	for {
		line, err := r.ReadString('\n')
		if err == nil || line != "" {
			a.lines <- strings.TrimSpace(line)
		}
		if err != nil {
			close(a.lines)
			return
		}
	}
}
