package engine

import (
	"fmt"

	"github.com/ralphloop/ralph_loop/breaker"
	"github.com/ralphloop/ralph_loop/events"
)

// breakerStartup applies the cooldown (OPEN → HALF_OPEN) and CB_AUTO_RESET
// before each iteration, as the bash loop does.
func (l *loop) breakerStartup() {
	created := l.brk.LastChange.IsZero() // never written, or without a usable last_change
	next, tr := l.brk.Startup(l.now(), l.brkCfg)
	if err := l.bus.Record(events.BreakerChecked{State: next, Transition: tr, Created: created}); err != nil {
		l.bus.Warnf("%v", err)
	}
	l.brk = next
	if tr != nil {
		l.breakerTransition(tr)
	}
}

// recordBreaker feeds one loop to the breaker; stop when it opened (the
// session is then reset with sessionReason).
func (l *loop) recordBreaker(lr breaker.LoopResult, sessionReason string) (Result, bool) {
	next, tr := l.brk.Record(lr, l.now(), l.brkCfg)
	if err := l.bus.Record(events.BreakerRecorded{State: next, Transition: tr}); err != nil {
		l.bus.Warnf("%v", err)
	}
	l.brk = next
	if tr != nil {
		l.breakerTransition(tr)
	}
	if l.brk.CanExecute() {
		return Result{}, false
	}
	l.resetSession(sessionReason)
	l.bus.Errorf("🛑 Circuit breaker has opened - halting loop")
	l.bus.Infof("Run '%s' to reset the circuit breaker after addressing issues", breaker.ResetCommand)
	return Result{Code: ExitHalted, Action: "circuit_breaker_open", Status: "halted", Reason: "stagnation_detected",
		Message: l.brk.Err().Error()}, true
}

// breakerTransition reports a transition (already in the history).
func (l *loop) breakerTransition(tr *breaker.Transition) {
	for _, line := range tr.Lines() {
		fmt.Fprintln(l.deps.Stdout, line)
	}
	level := events.Warn
	if tr.To == breaker.Closed {
		level = events.Success
	}
	l.bus.Log(level, "Circuit breaker: %s → %s (%s)", tr.From, tr.To, tr.Reason)
	l.emit(events.Event{Type: events.BreakerChanged, From: string(tr.From), To: string(tr.To), Reason: tr.Reason})
}

func (l *loop) breakerHalt(action, msg string) Result {
	l.resetSession("circuit_breaker_open")
	for _, line := range breaker.Halted(l.brk, l.now(), l.brkCfg) {
		fmt.Fprintln(l.deps.Stdout, line)
	}
	l.bus.Errorf("%s", msg)
	return Result{Code: ExitHalted, Action: action, Status: "halted", Reason: "stagnation_detected", Message: l.brk.Err().Error()}
}
