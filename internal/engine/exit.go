package engine

import (
	"github.com/ralphloop/ralph_loop/internal/events"
	"github.com/ralphloop/ralph_loop/internal/gates"
)

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

// blocking reports whether a failing gate of this mode keeps the run from
// ending as complete: every mode but warn.
func blocking(mode string) bool { return mode != "" && mode != gates.ModeWarn }

// holds reports whether the failing gates keep a completion for reason
// from ending the run in a blocking mode. The tests (TEST_COMMAND) hold
// every completion: a ticked plan whose tests fail is not done. The other
// gates (QUALITY_GATES, the agent's own TESTS_STATUS) hold what the agent
// says of itself — its exit signal, completion words, the done pattern —
// as the bash loop's block mode does, and let a ticked plan end the run,
// whose final line, status.json and event then say they fail
// (docs/COMPATIBILITY.md).
func holds(reason string, failures []gates.Failure) bool {
	for _, f := range failures {
		if reason != "plan_complete" || f.Gate == gates.GateTest {
			return true
		}
	}
	return false
}
