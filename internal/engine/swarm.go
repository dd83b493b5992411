package engine

import (
	"time"

	"github.com/ralphloop/ralph_loop/analysis"
	"github.com/ralphloop/ralph_loop/internal/events"
)

// Swarm is what the loops of one --swarm share (docs/SWARM.md): one
// calls-per-hour budget, and the usage limits any of them met. A loop of
// its own has none (Deps.Swarm nil) and is unchanged.
type Swarm interface {
	// TakeCall counts one call in the shared budget of now's clock hour
	// and reports whether it may go (false: max calls were made).
	TakeCall(now time.Time, max int) bool
	// LimitHit tells every loop that driver is at its usage limit until until.
	LimitHit(driver string, until time.Time)
	// LimitUntil is until when driver is at its usage limit, as any loop
	// met it (zero: it is not known to be).
	LimitUntil(driver string) time.Time
}

// swarmGate runs before each call of a swarm's worker: a usage limit
// another worker met is this loop's too (with FALLBACK_DRIVER the calls
// go to the fallback, else the loop waits for the reset), and the call
// is counted in the budget the workers share, waiting for the next hour
// when it is spent. again: the loop waited and starts the iteration over.
func (l *loop) swarmGate() (r Result, stop, again bool) {
	sw := l.deps.Swarm
	if sw == nil {
		return Result{}, false, false
	}
	now := l.now()
	if l.policy.fb != nil {
		l.policy.heardLimits(sw.LimitUntil)
		l.pickDriver()
	}
	if u := sw.LimitUntil(l.s.Driver); u.After(now) {
		reset := u.Add(-resetMargin)
		w := events.UsageWindow{Driver: l.s.Driver, Window: "unknown", Status: analysis.LimitRejected, ResetsAt: &reset, UpdatedAt: now}
		if s := l.act(l.policy.limitWait(w, "swarm_usage_limit")); s.stop {
			return s.result, true, false
		}
		return Result{}, false, true
	}
	if !sw.TakeCall(now, l.s.MaxCallsPerHour) {
		if r, stop := l.rateLimitWait(); stop {
			return r, true, false
		}
		return Result{}, false, true
	}
	return Result{}, false, false
}

// swarmLimitHit tells the swarm that this loop's driver met its usage
// limit, and until when.
func (l *loop) swarmLimitHit(res analysis.Result) {
	if l.deps.Swarm == nil {
		return
	}
	l.deps.Swarm.LimitHit(l.s.Driver, time.Unix(limitReset(res.UsageLimitResetsAt, l.now()), 0).Add(resetMargin))
}
