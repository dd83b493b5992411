package console

import (
	"io"
	"time"

	"github.com/ralphloop/ralph_loop/internal/events"
	"github.com/ralphloop/ralph_loop/internal/observe"
	"github.com/ralphloop/ralph_loop/internal/safetext"
)

// Options say how what is told is shown.
type Options struct {
	// Colour: log lines are coloured by level (stderr is a terminal).
	Colour bool
	// TTY: the console's output stream is a terminal. Boxes are coloured
	// and a wait shows a countdown redrawn in place; otherwise a wait
	// shows one INFO line a minute, in logs/ralph.log too, as the bash
	// loop does.
	TTY bool
	// NoColour (NO_COLOR set): the boxes are drawn without colour even
	// on a terminal.
	NoColour bool
	// Verbose shows DEBUG lines.
	Verbose bool
	// Width, when set, is the terminal's width in columns, asked before
	// each box is shown: a box or banner wider than that is redrawn to
	// fit (a tmux pane). Nil or 0 keeps the 62-column boxes.
	Width func() int
}

// ANSI colours: of the boxes and banners, as the bash loop's, and of the
// log lines by level.
const (
	red    = "\033[0;31m"
	yellow = "\033[1;33m"
	blue   = "\033[0;34m"
	purple = "\033[0;35m"
	reset  = "\033[0m"
)

var colours = map[events.Colour]string{events.Red: red, events.Yellow: yellow, events.Blue: blue, events.Purple: purple}

var levelColours = map[events.Level]string{
	events.Info:    blue,
	events.Warn:    yellow,
	events.Error:   red,
	events.Success: "\033[0;32m",
	events.Loop:    purple,
	events.Debug:   "",
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
	c.speaker = speaker{l: layout{o: o}, show: c.print}
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
			if p.level == events.Debug && !c.l.o.Verbose {
				continue
			}
			for _, text := range safetext.Lines(p.text) {
				l := "[" + ts.Local().Format(events.LocalStamp) + "] [" + string(p.level) + "] " + text
				if c.l.o.Colour {
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
	if c.l.o.Width == nil {
		return text
	}
	return fitBoxes(text, c.l.o.Width())
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
	l.speaker = speaker{l: layout{o: o}, show: l.print}
	return l
}

// print writes one log line for each line of a log part's text, made safe
// as on the console.
func (l *logSurface) print(ts time.Time, ps []part) {
	for _, p := range ps {
		if p.level == "" || p.level == events.Debug && !l.l.o.Verbose {
			continue
		}
		for _, text := range safetext.Lines(p.text) {
			l.to.Line(ts, p.level, text)
		}
	}
}
