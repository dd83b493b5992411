package engine

import (
	"context"
	"errors"
	"time"

	"github.com/ralphloop/ralph_loop/internal/countdown"
	"github.com/ralphloop/ralph_loop/internal/events"
)

var errSkipped = errors.New("wait skipped")

// wait blocks for d (kind names it in events: loop_delay, idle_backoff,
// failure_backoff, outage_backoff, rate_limit, usage_limit), noting the time left at the
// start and at every whole second (the console shows a countdown). A Ctrl+C from a terminal skips
// it (returns nil, skipped=true), and every further wait until the next
// agent call; the next call then starts once the double-press window
// (skipWindow) has passed, so that a double Ctrl+C stops the loop without
// starting a call. A stop returns the context's cause. Each wait is
// reported as it starts and as it ends.
func (l *loop) wait(kind string, d time.Duration) (skipped bool, err error) {
	return l.waitOut(events.Wait{Kind: kind, Delay: d})
}

// waitOut is wait for w.Delay, whose start is reported with what else w
// says of the wait (why the loop waits: the failures in a row, the
// outage).
func (l *loop) waitOut(w events.Wait) (skipped bool, err error) {
	kind, d := w.Kind, w.Delay
	if d <= 0 {
		return false, nil
	}
	l.plan.stale() // the person may edit it while the loop waits
	until := l.now().Add(d)
	w.Until = until
	l.bus.WaitStarted(l.at("", ""), w)
	if l.deps.Stopper != nil && l.deps.Stopper.skipping(l.calls) {
		l.bus.WaitEnded(l.at("", ""), events.Wait{Kind: kind, Delay: d, Skipped: true})
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
	err = countdown.Wait(ctx, until, func(left time.Duration) {
		l.bus.Note(events.WaitTick{Kind: kind, Left: left})
	})
	l.bus.Note(events.WaitOver{})
	switch {
	case err == nil:
	case errors.Is(err, errSkipped):
		skipped, err = true, nil
		l.deps.Stopper.noteSkip(l.calls)
		// A double Ctrl+C must never start an agent call: the next call
		// waits until the double-press window has passed, and a second
		// press inside it stops the loop.
		l.bus.Note(events.WaitSkipped{Window: skipWindow})
		select {
		case <-l.ctx.Done():
			l.bus.WaitEnded(l.at("", ""), events.Wait{Kind: kind, Delay: d, Skipped: true, Reason: "stopped"})
			return true, context.Cause(l.ctx)
		case <-time.After(skipWindow):
		}
	default:
		l.bus.WaitEnded(l.at("", ""), events.Wait{Kind: kind, Delay: d, Reason: "stopped"})
		return false, err
	}
	l.bus.WaitEnded(l.at("", ""), events.Wait{Kind: kind, Delay: d, Skipped: skipped})
	return skipped, nil
}
