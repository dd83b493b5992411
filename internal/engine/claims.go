package engine

import (
	"github.com/ralphloop/ralph_loop/internal/events"
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
