package engine

import (
	"github.com/ralphloop/ralph_loop/internal/events"
	"github.com/ralphloop/ralph_loop/ratelimit"
)

// rollWindow starts a new call window when the local clock hour changed.
// A project that never counted a call (no .last_reset, no count) has
// nothing to reset: the new window is saved without a word.
func (l *loop) rollWindow() {
	old := l.kept.Window
	w, rolled := old.Roll(l.now())
	l.kept.Window = w
	if rolled && (old.Hour != "" || old.Count > 0) {
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
