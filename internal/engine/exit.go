package engine

import (
	"regexp"

	"github.com/ralphloop/ralph_loop/analysis"
	"github.com/ralphloop/ralph_loop/internal/events"
	"github.com/ralphloop/ralph_loop/internal/gates"
)

// The exit decision, in two halves, each a function of values:
//
//   - decideExit: is a completion met? The agent's recent exit signals
//     and the plan (as the bash loop's graceful-exit check reads them),
//     --goal's check, and, after a call, the done pattern and a strict
//     run's claim of done. Nothing is done while the agent's question
//     waits for its answer.
//   - refuse: does it stand? In the default mode (COMPLETION_MODE=signals)
//     only a blocking quality gate refuses it; in strict mode (and --goal)
//     every open task of the plan (VERIFY_COMMAND opens the tasks whose
//     check failed) and every failing gate does.
//
// The loop gathers the facts (exitFacts), runs the gates a completion
// needs between the halves, and acts on the answers (complete, checkClaim).

// exitFacts are what the completion check reads.
type exitFacts struct {
	asking      bool                  // the agent's question waits for its answer: its answer may change what done is
	goal        bool                  // a --goal run: its check alone decides
	goalDone    bool                  // the --goal check passed
	haveSignals bool                  // the exit signals are kept (.exit_signals)
	signals     analysis.ExitSignals  // the recent calls' signals
	lastExit    bool                  // the last analysis' EXIT_SIGNAL
	plan        analysis.PlanProgress // the plan's ticked and total boxes (zero: no plan)

	// After a call: its reply.
	reply       bool           // the facts are a reply's: the done pattern and a claim count
	text        string         // the reply's result text
	donePattern *regexp.Regexp // DONE_PATTERN, nil when unset
	strict      bool           // COMPLETION_MODE=strict (or --goal)
	claimed     bool           // the agent said it is done (EXIT_SIGNAL), before any override
}

// exitCall is the completion check's answer.
type exitCall struct {
	reason  string                // the completion met ("" none): plan_complete, goal_met, done_pattern, …
	pattern bool                  // reason is the done pattern's
	claim   bool                  // strict: the agent claims done where nothing else did; checked as a completion
	decided bool                  // the exit signals were read: why is their decision
	why     analysis.ExitDecision // the signals' decision (its message is said when it ends the run)
}

// decideExit is the completion check of facts f: the signals' (or the
// goal's) completion first, else, after a call, the done pattern, else a
// strict run's claim.
func decideExit(f exitFacts) exitCall {
	if f.asking {
		return exitCall{} // the agent's question first, and a reply that asks claims nothing
	}
	var c exitCall
	switch {
	case f.goal:
		// A --goal run ends when its check passed, whatever the agent says.
		if f.goalDone {
			c.reason = goalMet
		}
	case f.haveSignals:
		c.decided, c.why = true, f.signals.Decide(f.lastExit, f.plan)
		c.reason = c.why.Reason
	}
	if c.reason != "" || !f.reply {
		return c
	}
	switch {
	case f.donePattern != nil && f.donePattern.MatchString(f.text):
		c.reason, c.pattern = "done_pattern", true
	case f.strict && f.claimed:
		c.claim = true
	}
	return c
}

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
