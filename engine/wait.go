package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/ralphloop/ralph_loop/countdown"
	"github.com/ralphloop/ralph_loop/events"
	"golang.org/x/time/rate"
)

var errSkipped = errors.New("wait skipped")

// wait blocks for d (kind names it in events: loop_delay, idle_backoff,
// failure_backoff, rate_limit, usage_limit), showing a live countdown on a
// terminal and one line a minute otherwise. A Ctrl+C from a terminal skips
// it (returns nil, skipped=true), and every further wait until the next
// agent call; the next call then starts once the double-press window
// (SkipWindow) has passed, so that a double Ctrl+C stops the loop without
// starting a call. A stop returns the context's cause. Each wait emits
// delay_started and delay_ended.
func (l *loop) wait(kind string, d time.Duration, label string) (skipped bool, err error) {
	if d <= 0 {
		return false, nil
	}
	until := l.now().Add(d)
	l.emit(events.Event{Type: events.DelayStarted, Wait: kind, Delay: d, Until: &until})
	if l.deps.Stopper != nil && l.deps.Stopper.skipping(l.calls) {
		l.emit(events.Event{Type: events.DelayEnded, Wait: kind, Delay: d, Skipped: true})
		return true, nil
	}
	ctx, cancel := context.WithCancelCause(l.ctx)
	defer cancel(nil)
	var skip <-chan struct{}
	if l.deps.Stopper != nil {
		skip = l.deps.Stopper.beginWait()
		defer l.deps.Stopper.endWait()
	}
	go func() {
		select {
		case <-skip:
			cancel(errSkipped)
		case <-ctx.Done():
		}
	}()
	tick := l.ticker(label)
	err = countdown.Wait(ctx, until, tick)
	l.endTicker()
	switch {
	case err == nil:
	case errors.Is(err, errSkipped):
		skipped, err = true, nil
		l.deps.Stopper.noteSkip(l.calls)
		// A double Ctrl+C must never start an agent call: the next call
		// waits until the double-press window has passed, and a second
		// press inside it stops the loop.
		l.bus.Infof("Wait skipped (Ctrl+C). Starting the next call in %d s — press Ctrl+C again to stop.", int(SkipWindow.Seconds()))
		select {
		case <-l.ctx.Done():
			l.emit(events.Event{Type: events.DelayEnded, Wait: kind, Delay: d, Skipped: true, Reason: "stopped"})
			return true, context.Cause(l.ctx)
		case <-time.After(SkipWindow):
		}
	default:
		l.emit(events.Event{Type: events.DelayEnded, Wait: kind, Delay: d, Reason: "stopped"})
		return false, err
	}
	l.emit(events.Event{Type: events.DelayEnded, Wait: kind, Delay: d, Skipped: skipped})
	return skipped, nil
}

// ticker returns the countdown display: a redrawn line on a terminal, a
// log line a minute (the first at once) otherwise. The redrawn line goes
// through the console (an events.Redrawer), which ends it before any other
// line is printed, on stdout or stderr.
func (l *loop) ticker(label string) func(time.Duration) {
	if l.deps.TTY {
		r := redrawer(l.deps.Stdout)
		l.drawn = true
		return func(left time.Duration) {
			r.Redraw(fmt.Sprintf("\033[1;33m%s: %s\033[0m", label, clock(left)))
		}
	}
	// Without a terminal (bmalph's dashboard, a log file): the first
	// tick, then one line a minute.
	every := rate.Sometimes{First: 1, Interval: time.Minute}
	return func(left time.Duration) {
		every.Do(func() { l.bus.Infof("%s: %s", label, clock(left)) })
	}
}

func (l *loop) endTicker() {
	if l.drawn {
		redrawer(l.deps.Stdout).EndRedraw()
		l.drawn = false
	}
}

// redrawer is w's own Redrawer, or plain writes to w ("\r" to redraw,
// "\n" to end) for a console that is not one (tests).
func redrawer(w io.Writer) events.Redrawer {
	if r, ok := w.(events.Redrawer); ok {
		return r
	}
	return plainRedrawer{w}
}

type plainRedrawer struct{ w io.Writer }

func (p plainRedrawer) Redraw(line string) { io.WriteString(p.w, "\r"+line+"\033[K") }
func (p plainRedrawer) EndRedraw()         { io.WriteString(p.w, "\n") }

// clock renders d as HH:MM:SS, rounded to the nearest second (a wait
// shorter than half a second shows 00:00:00; countdown.HMS rounds up).
func clock(d time.Duration) string {
	s := int(d.Round(time.Second).Seconds())
	return fmt.Sprintf("%02d:%02d:%02d", s/3600, s%3600/60, s%60)
}

// ANSI colours for the boxes and banners on stdout, as the bash loop's.
const (
	red    = "\033[0;31m"
	blue   = "\033[0;34m"
	purple = "\033[0;35m"
	reset  = "\033[0m"
)

// colour returns code when stdout is a terminal, else "": a log file or
// bmalph's pipe gets plain text.
func (l *loop) colour(code string) string {
	if l.deps.TTY {
		return code
	}
	return ""
}
