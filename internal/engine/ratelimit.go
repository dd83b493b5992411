package engine

import (
	"github.com/ralphloop/ralph_loop/internal/events"
	"github.com/ralphloop/ralph_loop/ratelimit"
)

// rollWindow starts a new call window when the local clock hour changed.
func (l *loop) rollWindow() {
	w, rolled := l.kept.Window.Roll(l.now())
	l.kept.Window = w
	if rolled {
		l.bus.Note(events.CallWindowReset{Hour: w.Hour})
	}
}

// rateLimitWait waits for the top of the next local hour.
func (l *loop) rateLimitWait() (Result, bool) {

	until := ratelimit.NextReset(l.now())
	d := until.Sub(l.now())
	l.bus.LimitHit(l.at("", ""), events.Wait{Kind: "rate_limit", Delay: d, Until: until})
	if _, err := l.wait("rate_limit", d); err != nil {
		return l.signalExit(), true
	}
	l.kept.Window = ratelimit.Fresh(l.now()) // saved at the next iteration's check
	l.bus.Note(events.RateLimitReset)
	return Result{}, false
}
