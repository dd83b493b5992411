package engine

import (
	"github.com/ralphloop/ralph_loop/breaker"
	"github.com/ralphloop/ralph_loop/internal/events"
)

// breakerStartup applies the cooldown (OPEN → HALF_OPEN) and CB_AUTO_RESET
// before each iteration, as the bash loop does.
func (l *loop) breakerStartup() {
	next, tr := l.kept.Breaker.Startup(l.now(), l.brkCfg)
	l.breakerMoved(next, tr)
	l.save(savedCheck)
	if tr != nil {
		l.breakerTransition(tr)
	}
}

// recordBreaker feeds one loop to the breaker; stop when it opened (the
// session is then reset with sessionReason).
func (l *loop) recordBreaker(lr breaker.LoopResult, sessionReason string) (Result, bool) {
	next, tr := l.kept.Breaker.Record(lr, l.now(), l.brkCfg)
	l.breakerMoved(next, tr)
	l.save(savedBreaker)
	if tr != nil {
		l.breakerTransition(tr)
	}
	if l.kept.Breaker.Err(l.brkCfg) == nil {
		return Result{}, false
	}
	l.resetSession(sessionReason) // the call's end says the breaker halts the run
	return Result{Code: ExitHalted, Action: "circuit_breaker_open", Status: "halted", Reason: "stagnation_detected",
		Stop: events.Stop{Kind: events.StopBreaker, Err: l.kept.Breaker.Err(l.brkCfg)}}, true
}

// breakerTransition reports a transition (already in the history).
func (l *loop) breakerTransition(tr *breaker.Transition) {
	l.bus.BreakerMoved(l.at("", ""), events.BreakerChange{From: string(tr.From), To: string(tr.To), Reason: tr.Reason,
		Closed: tr.To == breaker.Closed, Report: tr.Lines()})
}

// breakerHalt stops the run when the breaker is open before a call (the
// session is kept with KEEP_SESSION_ON_STOP, as at openAtStart).
func (l *loop) breakerHalt(action string) Result {
	l.stopReset("circuit_breaker_open")
	l.bus.Note(events.BreakerHalted{Report: breaker.Halted(l.kept.Breaker, l.now(), l.brkCfg)})
	return Result{Code: ExitHalted, Action: action, Status: "halted", Reason: "stagnation_detected",
		Stop: events.Stop{Kind: events.StopBreaker, Err: l.kept.Breaker.Err(l.brkCfg)}}
}

// resetCommand closes an OPEN circuit by hand, where the loop was
// started (breaker.Config.ResetCommand, else the default).
func (l *loop) resetCommand() string {
	if l.brkCfg.ResetCommand != "" {
		return l.brkCfg.ResetCommand
	}
	return breaker.DefaultResetCommand
}
