package console

import (
	"io"
	"time"

	"github.com/ralphloop/ralph_loop/internal/events"
	"github.com/ralphloop/ralph_loop/internal/observe"
	"github.com/ralphloop/ralph_loop/internal/safetext"
)

// levelColours colour a log line on a terminal, by level.
var levelColours = map[events.Level]string{
	events.Info:    "\033[0;34m",
	events.Warn:    yellow,
	events.Error:   red,
	events.Success: "\033[0;32m",
	events.LoopLvl: purple,
	events.Debug:   "",
}

// Console is the sink that shows notices to a person: log lines
// ("[stamp] [LEVEL] msg") on err, and boxes, banners, the agent's live
// output and countdowns on out. With a Terminal, out and err are its
// streams, so everything reaches the screen in the order it was noted.
type Console struct {
	observe.Nop
	out, err io.Writer
	r        renderer
}

var (
	_ observe.Observer = (*Console)(nil)
	_ observe.Observer = (*Log)(nil)
)

// New returns the console sink.
func New(out, err io.Writer, o Options) *Console {
	return &Console{out: out, err: err, r: renderer{o: o}}
}

// Notice implements observe.Observer. What a notice carries from outside
// (the agent's words, a file's contents, a folder's name) is made safe on
// the way out (package safetext): a log line keeps no control at all, one
// line of its text per log line, and the rest keeps only colours; the
// console's own colours are added after.
func (c *Console) Notice(ts time.Time, n events.Notice) {
	for _, p := range c.r.render(n) {
		switch {
		case p.level != "":
			if p.level == events.Debug && !c.r.o.Verbose {
				continue
			}
			for _, text := range safetext.Lines(p.text) {
				l := "[" + ts.Local().Format(events.LocalStamp) + "] [" + string(p.level) + "] " + text
				if c.r.o.Colour {
					l = levelColours[p.level] + l + reset
				}
				io.WriteString(c.err, l+"\n")
			}
		case p.redraw:
			redrawer(c.out).Redraw(safetext.Colour(p.text))
		case p.end:
			redrawer(c.out).EndRedraw()
		case p.clear:
			clearRedrawn(c.out)
		default:
			io.WriteString(c.out, c.fit(safetext.Colour(p.text)))
		}
	}
}

// fit is text with its boxes redrawn to the terminal's width, when that
// is known.
func (c *Console) fit(text string) string {
	if c.r.o.Width == nil {
		return text
	}
	return fitBoxes(text, c.r.o.Width())
}

// redrawer is w's own Redrawer (a Terminal stream), or plain writes to w:
// "\r" to redraw, "\n" to end.
func redrawer(w io.Writer) Redrawer {
	if r, ok := w.(Redrawer); ok {
		return r
	}
	return plainRedrawer{w}
}

type plainRedrawer struct{ w io.Writer }

func (p plainRedrawer) Redraw(line string) { io.WriteString(p.w, "\r"+line+"\033[K") }
func (p plainRedrawer) EndRedraw()         { io.WriteString(p.w, "\n") }

// LineSink takes log lines: logs/ralph.log.
type LineSink interface {
	Line(ts time.Time, level events.Level, msg string)
}

// Log is the sink that hands each notice's log lines to a LineSink,
// rendered exactly as the console shows them (without colour).
type Log struct {
	observe.Nop
	to LineSink
	r  renderer
}

// NewLog returns the sink writing to to.
func NewLog(to LineSink, o Options) *Log { return &Log{to: to, r: renderer{o: o}} }

// Notice implements observe.Observer: one log line for each line of a
// log part's text, made safe as on the console.
func (l *Log) Notice(ts time.Time, n events.Notice) {
	for _, p := range l.r.render(n) {
		if p.level == "" || p.level == events.Debug && !l.r.o.Verbose {
			continue
		}
		for _, text := range safetext.Lines(p.text) {
			l.to.Line(ts, p.level, text)
		}
	}
}
