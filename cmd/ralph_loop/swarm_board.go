package main

import (
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/ralphloop/ralph_loop/internal/safetext"
	"github.com/ralphloop/ralph_loop/internal/swarm"
)

// board is --swarm's console: one line per worker. On a terminal the
// workers' lines stay together at the bottom and are redrawn in place,
// with the queue's messages printed above them; elsewhere each change is
// a line of its own. Text from the plan (epic headings) is made safe
// here, since the redraw writes its own escapes past the usual filter.
type board struct {
	mu    sync.Mutex
	w     io.Writer
	tty   bool
	width func() int // the terminal's columns; nil: no cut
	stamp func() string
	lines []string // a worker's line, by id-1
	drawn int      // lines of the block on screen
}

// log prints one message above the block.
func (b *board) log(msg string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.clear()
	fmt.Fprintf(b.w, "[%s] %s\n", b.stamp(), safetext.Line(msg))
	b.draw()
}

// show updates a worker's line.
func (b *board) show(w swarm.Worker) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for len(b.lines) < w.ID {
		b.lines = append(b.lines, "")
	}
	line := safetext.Line(w.Line())
	b.lines[w.ID-1] = line
	if !b.tty {
		fmt.Fprintf(b.w, "[%s] [SWARM] %s\n", b.stamp(), line)
		return
	}
	b.clear()
	b.draw()
}

func (b *board) clear() {
	if b.tty && b.drawn > 0 {
		fmt.Fprintf(b.w, "\x1b[%dA\x1b[J", b.drawn)
		b.drawn = 0
	}
}

func (b *board) draw() {
	if !b.tty {
		return
	}
	var sb strings.Builder
	for _, l := range b.lines {
		if l == "" {
			continue
		}
		if b.width != nil {
			if r := []rune(l); b.width() > 1 && len(r) >= b.width() {
				l = string(r[:b.width()-1])
			}
		}
		sb.WriteString(l + "\n")
		b.drawn++
	}
	io.WriteString(b.w, sb.String())
}
