package engine

import (
	"github.com/ralphloop/ralph_loop/breaker"
	"github.com/ralphloop/ralph_loop/internal/events"
)

// openAtStart stops a run whose circuit breaker is open when it starts and
// stays open (its cooldown has not passed, CB_AUTO_RESET is off) before
// anything else happens, so that the first thing the run says is why it
// cannot go on and what to do, in two lines: no banner, no boxes, no
// start-up checks, no loop that never runs, no closing line repeating it. The agent session is reset, as the bash loop does when
// it halts on an open breaker, unless KEEP_SESSION_ON_STOP keeps it.
func (l *loop) openAtStart() (Result, bool) {
	b, err := l.state.LoadBreaker()
	if err != nil || b.State != breaker.Open {
		return Result{}, false // the start-up proper reports a damaged file
	}
	if next, _ := b.Startup(l.now(), l.s.Breaker); next.Err(l.s.Breaker) == nil {
		return Result{}, false // the first loop records the transition
	}
	l.kept.Breaker = b
	// status.json's calls_made_this_hour is the hour's count, as the bash
	// loop's (its call tracking rolls the hour over before the breaker
	// gate); the window is only read: the first loop of a run saves it.
	l.kept.Window, _ = l.state.PeekWindow().Roll(l.now())
	// The bash loop counts the loop it was about to start before it halts:
	// status.json says loop_count 1 (docs/COMPATIBILITY.md).
	l.n = 1
	stop := events.Stop{Kind: events.StopBreaker, Err: b.Err(l.s.Breaker)}
	// One statement of the fact and how to go on, not the halt's boxes
	// (ralph_loop --circuit-status shows them).
	l.bus.Note(events.BreakerOpenAtStart{Stop: stop, Next: breaker.AtStart(b, l.now(), l.s.Breaker)})
	l.readPlan() // status.json's task counts
	// As the bash loop does when it halts on an open breaker.
	l.started = true
	l.stopReset("circuit_breaker_open")
	return Result{Code: ExitHalted, Action: "circuit_breaker_open", Status: "halted", Reason: "stagnation_detected", Stop: stop, Told: true}, true
}
