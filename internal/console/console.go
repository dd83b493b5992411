package console

import (
	"io"
	"time"

	"github.com/ralphloop/ralph_loop/internal/events"
	"github.com/ralphloop/ralph_loop/internal/observe"
	"github.com/ralphloop/ralph_loop/internal/safetext"
)

// The levels of the lines only the console words: good news, the loop's
// own marks ("=== Starting Loop #1 ==="), and the details shown with
// --verbose only, as the bash loop prints them.
const (
	success   events.Level = "SUCCESS"
	loopLevel events.Level = "LOOP"
	debug     events.Level = "DEBUG"
)

// levelColours colour a log line on a terminal, by level.
var levelColours = map[events.Level]string{
	events.Info:  "\033[0;34m",
	events.Warn:  yellow,
	events.Error: red,
	success:      "\033[0;32m",
	loopLevel:    purple,
	debug:        "",
}

// consoleSurface is the surface that shows a person what happens: log lines
// ("[stamp] [LEVEL] msg") on err, and boxes, banners, the agent's live
// output and countdowns on out. With a Terminal, out and err are its
// streams, so everything reaches the screen in the order it was reported.
type consoleSurface struct {
	speaker
	out, err io.Writer
}

var (
	_ observe.Observer = (*consoleSurface)(nil)
	_ observe.Observer = (*logSurface)(nil)
)

// New returns the console: the surface that shows a person what happens,
// log lines ("[stamp] [LEVEL] msg") on err, and boxes, banners, the
// agent's live output and countdowns on out.
func New(out, err io.Writer, o Options) observe.Observer {
	c := &consoleSurface{out: out, err: err}
	c.speaker = speaker{Observer: observe.Ignore, r: renderer{o: o}, show: c.print}
	return c
}

// print shows the parts of a report. What a report carries from outside
// (the agent's words, a file's contents, a folder's name) is made safe on
// the way out (package safetext): a log line keeps no control at all, one
// line of its text per log line, and the rest keeps only colours; the
// console's own colours are added after.
func (c *consoleSurface) print(ts time.Time, ps []part) {
	for _, p := range ps {
		switch {
		case p.level != "":
			if p.level == debug && !c.r.o.Verbose {
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
func (c *consoleSurface) fit(text string) string {
	if c.r.o.Width == nil {
		return text
	}
	return fitBoxes(text, c.r.o.Width())
}

// redrawer is w's own redrawing (a Terminal stream), or plain writes to w:
// "\r" to redraw, "\n" to end.
func redrawer(w io.Writer) redrawing {
	if r, ok := w.(redrawing); ok {
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

// logSurface is the surface that hands each report's log lines to a
// LineSink, worded exactly as the console shows them (without colour).
type logSurface struct {
	speaker
	to LineSink
}

// NewLog returns the surface that hands each report's log lines to to,
// worded exactly as the console shows them (without colour).
func NewLog(to LineSink, o Options) observe.Observer {
	l := &logSurface{to: to}
	l.speaker = speaker{Observer: observe.Ignore, r: renderer{o: o}, show: l.print}
	return l
}

// print writes one log line for each line of a log part's text, made safe
// as on the console.
func (l *logSurface) print(ts time.Time, ps []part) {
	for _, p := range ps {
		if p.level == "" || p.level == debug && !l.r.o.Verbose {
			continue
		}
		for _, text := range safetext.Lines(p.text) {
			l.to.Line(ts, p.level, text)
		}
	}
}
