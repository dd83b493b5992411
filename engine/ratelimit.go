package engine

import (
	"github.com/ralphloop/ralph_loop/events"
	"github.com/ralphloop/ralph_loop/ratelimit"
)

// rollWindow starts a new call window when the local clock hour changed.
func (l *loop) rollWindow() {
	w, rolled := l.window.Roll(l.now())
	l.window = w
	if rolled {
		l.saveWindow()
		l.bus.Infof("%s", ratelimit.NewHourMessage(w.Hour))
	}
}

func (l *loop) saveWindow() error { return l.bus.Record(events.WindowChanged{Window: l.window}) }

// rateLimitWait waits for the top of the next local hour.
func (l *loop) rateLimitWait() (Result, bool) {
	l.bus.Warnf("%s", ratelimit.ReachedMessage(l.window.Count, l.s.MaxCallsPerHour))
	until := ratelimit.NextReset(l.now())
	d := until.Sub(l.now())
	l.bus.Infof("%s", ratelimit.SleepingMessage(d))
	l.emit(events.Event{Type: events.RateLimited, Wait: "rate_limit", Delay: d, Until: &until})
	if _, err := l.wait("rate_limit", d, "Time until reset"); err != nil {
		return l.signalExit(), true
	}
	l.window = ratelimit.Fresh(l.now())
	l.saveWindow()
	l.bus.Successf("Rate limit reset! Ready for new calls.")
	return Result{}, false
}
