package engine

import (
	"github.com/ralphloop/ralph_loop/internal/events"
	"github.com/ralphloop/ralph_loop/internal/gates"
)

// A claim of done is a completion the loop refused: the run looked
// complete (the agent's exit signals, a ticked plan, the done pattern) or
// the agent said it was done, but it is not proven. In the default mode
// (COMPLETION_MODE=signals) only a blocking quality gate refuses one, as
// before; with COMPLETION_MODE=strict (and --goal) every open box of the
// plan and every failing gate does. Refused claims feed the next call's
// context; a refused claim that changed nothing counts toward the breaker
// like any loop without progress, and in strict mode a second claim in a
// row that changed nothing ends the run (completion_not_proven).

// refusal is why a completion is not accepted.
type refusal struct {
	open, total int             // the plan's open and total tasks, when they refuse it
	failures    []gates.Failure // the failing gates, when they refuse it
}

// refuse decides whether a completion for reason stands. strict: the plan
// must have no open box and every configured gate must pass (failures: the
// gates' last run). Otherwise only a blocking gate mode (gateMode) refuses
// it, for the failures that hold such a reason (holds). The zero plan
// (no @fix_plan.md) has no open box.
func refuse(strict bool, gateMode, reason string, plan events.PlanCount, failures []gates.Failure) (r refusal, refused bool) {
	if strict {
		if open := plan.Total - plan.Done; plan.Have && open > 0 {
			r.open, r.total = open, plan.Total
		}
		r.failures = failures
		return r, r.open > 0 || len(r.failures) > 0
	}
	if blocking(gateMode) && holds(reason, failures) {
		return refusal{failures: failures}, true
	}
	return refusal{}, false
}

// claimWatch follows the refused claims in a row, one per loop, and the
// last loop that changed the project.
type claimWatch struct {
	count int      // loops in a row whose claim was refused
	since int      // the last loop that changed the project (0: none in this run)
	last  *refusal // why the last claim was refused
	// now: this loop's claim was refused (set by the completion check,
	// read and cleared when the loop is counted).
	now *refusal
}

// see counts a finished loop: it changed the project or not, and its
// claim was refused (now) or it made none.
func (w *claimWatch) see(loop int, changed bool) {
	if changed {
		w.since = loop
	}
	if w.now != nil {
		w.count++
		w.last = w.now
	} else {
		w.count, w.last = 0, nil
	}
	w.now = nil
}

// unproven reports whether a strict run stops: a claim refused again in a
// loop that changed nothing. The agent was told why the first time; a
// second call that changes nothing will not change the answer.
func (w claimWatch) unproven(changed bool) bool { return w.count >= 2 && !changed }

// claims is the account of a run of refused claims for a stop line: count
// claims, the last refusal's reason, and the last loop with a change.
func (w claimWatch) claims(strict bool) *events.Claims {
	if w.count == 0 || w.last == nil {
		return nil
	}
	c := &events.Claims{Count: w.count, Since: w.since, Open: w.last.open, Total: w.last.total, Strict: strict}
	if len(w.last.failures) > 0 {
		f := w.last.failures[0]
		c.Gate, c.Command = f.Gate, f.Command
	}
	return c
}

// unprovenStop ends a strict run whose agent claimed done again, having
// changed nothing: not completed, with its own exit code and reason.
func (l *loop) unprovenStop() Result {
	l.resetSession("completion_not_proven")
	return l.stopping(Result{Code: ExitUnproven, Action: "completion_not_proven", Status: "halted", Reason: "completion_not_proven",
		Stop: events.Stop{Kind: events.StopUnproven, Claims: l.claims.claims(true)}})
}
