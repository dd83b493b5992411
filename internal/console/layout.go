package console

import (
	"strings"
	"time"

	"github.com/ralphloop/ralph_loop/internal/clip"
	"github.com/ralphloop/ralph_loop/internal/events"
)

// part is one piece of laid-out text: a log line (level set), text for
// the console's output stream, or a redrawn line's drawing, end or
// erasure.
type part struct {
	level  events.Level
	text   string
	redraw bool // text replaces the pending redrawn line
	end    bool // ends the pending redrawn line
	clear  bool // erases the pending redrawn line, if any
}

// layout turns the lines of what is told (events.Line) into parts, as the
// options say: colours and redrawn lines on a terminal, a countdown's
// once-a-minute line elsewhere. It keeps one piece of state: where the
// current wait's once-a-minute line was last shown.
type layout struct {
	o        Options
	marked   bool          // a line of the current wait was shown
	lastMark time.Duration // the time left when it was
}

// parts lays out lines.
func (l *layout) parts(lines []events.Line) []part {
	ps := make([]part, 0, len(lines))
	for _, ln := range lines {
		if p, ok := l.part(ln); ok {
			ps = append(ps, p)
		}
	}
	return ps
}

// part lays out one line; ok is false when it shows nothing here.
func (l *layout) part(ln events.Line) (p part, ok bool) {
	switch ln.Show {
	case events.Log:
		return part{level: ln.Level, text: ln.Text}, true
	case events.Output:
		return part{text: l.coloured(ln.Colour, ln.Text)}, true
	case events.Countdown:
		return l.countdown(ln)
	case events.CountdownOver:
		l.marked = false
		return part{end: true}, l.o.TTY
	case events.Ticking:
		return part{text: l.fitted(ln.Text), redraw: true}, l.o.TTY
	case events.TickingOver:
		return part{clear: true}, l.o.TTY
	}
	return part{}, false
}

// coloured is text in colour c on a terminal (not under NO_COLOR): the colour starts after
// its leading newlines and ends before its trailing ones.
func (l *layout) coloured(c events.Colour, text string) string {
	code := colours[c]
	if !l.o.TTY || l.o.NoColour || code == "" {
		return text
	}
	body := strings.TrimLeft(text, "\n")
	lead := text[:len(text)-len(body)]
	inner := strings.TrimRight(body, "\n")
	return lead + code + inner + reset + body[len(inner):]
}

// countdown is a wait's countdown: redrawn in place on a terminal;
// otherwise the first tick and then one a minute as a log line (for
// bmalph's dashboard or a log file). The minute is measured on the time
// left, so the console and logs/ralph.log pick the same ticks.
func (l *layout) countdown(ln events.Line) (part, bool) {
	if l.o.TTY {
		return part{text: yellow + ln.Text + reset, redraw: true}, true
	}
	if l.marked && l.lastMark-ln.Left < time.Minute {
		return part{}, false
	}
	l.marked, l.lastMark = true, ln.Left
	return part{level: ln.Level, text: ln.Text}, true
}

// fitted is a redrawn line cut to the terminal's width, when that is
// known: a wrapped line could not be redrawn.
func (l *layout) fitted(s string) string {
	if l.o.Width != nil {
		// short of the last column, where a terminal may wrap
		if w := l.o.Width(); w > 2 {
			s = clip.Columns(s, w-1)
		}
	}
	return s
}
