package console

import (
	"fmt"
	"io"
	"strings"
	"unicode"

	"github.com/ralphloop/ralph_loop/internal/clip"
	"github.com/ralphloop/ralph_loop/internal/events"
)

// agentTick renders the ticking line of a call in the default mode, on a
// terminal only: redrawn in place each second, cleared when the call
// ends. Nothing of it reaches logs/ralph.log or a pipe (it has no level).
func (r *renderer) agentTick(n events.Notice) []part {
	if !r.o.TTY {
		return nil
	}
	switch n := n.(type) {
	case events.AgentWorking:
		s := fmt.Sprintf("⏳ %s working: %s, %s of output", n.Agent, clock(n.Elapsed), byteSize(n.Bytes))
		if t := printable(n.Tool); t != "" {
			s += ", last tool: " + clip.Ellipsis(t, 40)
		}
		if r.o.Width != nil {
			// A wrapped line could not be redrawn; ⏳ takes two columns.
			if w := r.o.Width(); w > 2 {
				s = clip.Ellipsis(s, w-2)
			}
		}
		return []part{{text: s, redraw: true}}
	case events.AgentTickOver:
		return []part{{clear: true}}
	}
	return nil
}

// byteSize is n bytes for a person: 512 B, 12.3 KB, 4.0 MB (powers of 1024).
func byteSize(n int64) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%d B", n)
	case n < 1024*1024:
		return fmt.Sprintf("%.1f KB", float64(n)/1024)
	}
	return fmt.Sprintf("%.1f MB", float64(n)/(1024*1024))
}

// printable is s, which the agent chose, without control characters
// (escape sequences included) or line breaks.
func printable(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsPrint(r) {
			return r
		}
		return -1
	}, s)
}

// eraseLine erases the whole screen line and returns to its start, so that
// what follows starts a line of its own.
const eraseLine = "\033[2K\r"

// clearRedrawn erases w's pending redrawn line: a Terminal stream erases it
// only if one is pending; on a plain writer the line is erased as is.
func clearRedrawn(w io.Writer) {
	if s, ok := w.(*termStream); ok {
		s.t.put(termItem{stream: s.stream, kind: termClearRedraw})
		return
	}
	io.WriteString(w, eraseLine)
}

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
