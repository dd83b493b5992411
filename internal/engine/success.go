package engine

import (
	"github.com/ralphloop/ralph_loop/analysis"
	"github.com/ralphloop/ralph_loop/breaker"
	"github.com/ralphloop/ralph_loop/drivers"
	"github.com/ralphloop/ralph_loop/internal/events"
	"github.com/ralphloop/ralph_loop/internal/fixplan"
	"github.com/ralphloop/ralph_loop/templates"
)

// step is what the loop does after a finished call: go on with the next
// loop, or end the run with result.
type step struct {
	stop   bool
	result Result
	// failed: the call failed and its back-off has been waited out, so
	// the loop neither marks it completed nor waits the loop delay again.
	failed bool
}

var goOn = step{}

// backedOff goes on after a failed call whose back-off was waited.
var backedOff = step{failed: true}

func stopWith(r Result) step { return step{stop: true, result: r} }

// success handles a call that exited 0, in four stages: analyse the reply,
// measure the progress (plan and git), run the quality gates, then let the
// breaker and the exit conditions decide the next step.
func (l *loop) success(c *call) step {
	l.countSuccess()
	res := l.analyseReply(c)
	if s, done := l.errorReply(c, res); done {
		return s // exit 0, yet the CLI reported the provider's failure
	}
	if drivers.NoRequest(res) {
		return l.noRequest(c, res) // exit 0, yet it did nothing
	}
	l.recordCall()
	l.retry = 0
	l.measureProgress(c, &res)
	if l.checkTasks(c) {
		return stopWith(l.signalExit()) // stopped while a task's check ran
	}
	gate := l.checkGates(c, &res)
	l.noteQuestion(&res)
	l.tasksAfter(c, gate)
	exit := l.recordAnalysis(c, res)
	return l.decide(c, res, gate, exit)
}

// countSuccess counts a call that exited 0 in the run; the hour's window
// counts it once its reply is known to be one the provider served.
func (l *loop) countSuccess() {
	l.calls++
	l.bus.Note(events.AgentSucceeded{Agent: l.display()})
}

// analyseReply analyses the call's output, keeps its session id and adds
// its usage to the run's totals.
func (l *loop) analyseReply(c *call) analysis.Result {
	l.collapseStream(c)
	l.bus.Note(events.Analysing{Agent: l.display()})
	res, err := l.analyze(c)
	if err != nil {
		l.warn(err)
	}
	c.res = &res
	if res.SessionID != "" {
		l.saveSessionID(res.SessionID)
	}
	l.spend(res.Usage)
	return res
}

// measureProgress compares the plan's checked boxes with the claim,
// collapses finished stories and counts the files changed in git (the
// breaker's progress signal).
func (l *loop) measureProgress(c *call, res *analysis.Result) {
	c.claimed = res.ExitSignal
	l.readPlan()
	after := c.before
	if counts, ok := l.fixPlanCounts(); ok {
		after = counts.Checked
	}
	l.applyPlanDelta(res, c.before, after)
	if l.plan.found {
		c.ticked = fixplan.Ticked(c.planBefore, l.plan.data)
	}
	if after > c.before {
		l.collapseStories()
	}

	files, numstat, mark, ok := l.changesAndTree(c.startSHA)
	c.files = files
	c.change = l.changeTo(c, c.before, after, mark, ok)
	res.SetFilesModified(files)
	l.bus.Note(events.FilesChanged{Count: files})
	if s := templates.DiffSummary(numstat); s != "" {
		l.pendingSummary = s
		l.keep.DiffSummaryChanged(s)
	}
	c.exitSignal = res.ExitSignal
}

// checkGates runs the quality gates; a blocking gate takes back the
// reply's completion signals.
func (l *loop) checkGates(c *call, res *analysis.Result) gateResult {
	gate := l.runGates(c, res)
	if gate.Block {
		l.bus.Note(events.GateBlocksCompletion)
		res.SuppressCompletion()
	}
	return gate
}

// recordAnalysis keeps the analysis and the exit signals, shows the
// analysis box and the error lines, and returns the completion check
// they, the plan and the reply make (exitAfter).
func (l *loop) recordAnalysis(c *call, res analysis.Result) exitCall {
	l.saveAnalysis(res.ResponseAnalysis())
	l.updateExitSignals(res)
	l.bus.Note(events.Analysed{Loop: l.n, ExitSignal: res.ExitSignal, Confidence: res.ConfidenceScore,
		TestOnly: res.IsTestOnly, FilesChanged: res.FilesModified, Summary: res.WorkSummary})
	exit := l.exitAfter(c, res)

	if res.HasErrors {
		l.bus.Note(events.OutputErrors{File: l.rel(c.outName), Errors: res.ErrorLines[:min(3, len(res.ErrorLines))]})
	}
	return exit
}

// decide feeds the breaker, then handles permission denials, idle and
// completed iterations, the exit conditions and the periodic review.
func (l *loop) decide(c *call, res analysis.Result, gate gateResult, exit exitCall) step {
	it := l.iterationRecord(c, res, "success")
	it.QualityGateResult = gate.Code
	idle := l.idleEnabled() && res.HasState("idle")
	for _, st := range res.States {
		if st != "idle" {
			l.bus.Note(events.UnknownState{Name: st})
		}
	}
	// Idle iterations are not "no progress" for the breaker; an asking
	// one is what it was only when nobody answers.
	if !idle {
		if lr := l.progressOf(c, res, gate); !l.deferBreaker(lr) {
			if r, stop := l.recordBreaker(lr, "circuit_breaker_trip"); stop {
				r.Stop.Claims = l.breakerClaims(c, exit)
				it.Outcome = "circuit_breaker_trip"
				l.bus.CallEnded(l.at("", ""), events.Call{Outcome: events.IterationCompleted, Iteration: it, BreakerOpened: true, ResetCommand: l.resetCommand()})
				return stopWith(r)
			}
		}
	}
	if res.HasPermissionDenials {
		l.idle.end()
		return l.permissionDenied(c, res, it)
	}
	l.noteIdle(c, it, idle)
	l.policy.succeeded()
	return l.afterSuccess(c, res, idle, exit)
}

// breakerClaims is the account of the refused claims a breaker that opens
// after call c cuts short (nil when none went before it, or c changed
// something: the breaker opened for another reason). c's own completion
// (the signals', or a strict run's claim) would have been refused once more.
func (l *loop) breakerClaims(c *call, exit exitCall) *events.Claims {
	w := l.claims
	if w.count == 0 || c.change.changed(c.files) {
		return nil
	}
	if exit.reason != "" && !exit.pattern || l.s.Strict() && c.claimed {
		w.count++
	}
	return w.claims(l.s.Strict())
}

// progressOf is the breaker's view of one successful loop; a gate in
// circuit-breaker mode withholds its progress.
func (l *loop) progressOf(c *call, res analysis.Result, gate gateResult) breaker.LoopResult {
	lr := breaker.LoopResult{
		Loop: l.n, FilesChanged: c.files, HasErrors: res.HasErrors, ErrorLine: res.FirstErrorLine(),
		OutputLength: res.OutputLength, HasPermissionDenials: res.HasPermissionDenials,
		DeniedCommands: res.DeniedCommands, AskingQuestions: res.AskingQuestions,
		CompletionSignal: res.HasCompletionSignal || res.ExitSignal,
		// .response_analysis' files_modified (the git count, else the
		// JSON figure), as the bash loop's breaker reads it; the status
		// block's FILES_MODIFIED is a claim, not progress.
		ReportedFilesModified: res.FilesModified,
	}
	// Progress is change since the previous loop: files git lists as
	// changed that were already so (an old uncommitted edit) are not.
	if changed := c.change.changed(c.files); !changed {
		lr.FilesChanged, lr.ReportedFilesModified = 0, 0
	} else {
		lr.FilesChanged = progressFiles(c.files, true)
	}
	if l.s.Strict() {
		// A claim of done is no change: in strict mode only change is
		// progress.
		lr.CompletionSignal = false
	}
	if gate.WithholdProgress {
		l.bus.Note(events.GateWithholdsProgress)
		lr.FilesChanged, lr.HasErrors, lr.CompletionSignal, lr.ReportedFilesModified = 0, true, false, 0
		if lr.ErrorLine == "" {
			lr.ErrorLine = "quality gate failed"
		}
	}
	return lr
}

// noteIdle counts an idle iteration (or ends an idle streak) and emits
// the iteration's event.
func (l *loop) noteIdle(c *call, it *events.Iteration, idle bool) {
	if !idle {
		l.idle.end()
		l.bus.CallEnded(l.at("completed", "success"), events.Call{Outcome: events.IterationCompleted, Iteration: it})
		return
	}
	it.Outcome = "idle"
	l.idle.add(c.started)
	l.bus.CallEnded(l.at("idle", "running"), events.Call{Outcome: events.IterationIdle, Iteration: it, Idle: l.idle.count})
}

// afterSuccess ends the run on a pending exit reason or the done pattern
// (unless the completion is refused, or the agent's question waits for
// its answer or the answer for a call that hears it), stops a strict run whose agent
// claims done again having changed nothing, else runs the periodic review
// and watches for stalls.
func (l *loop) afterSuccess(c *call, res analysis.Result, idle bool, exit exitCall) step {
	if exit.pattern {
		l.bus.Note(events.DoneMatched{Pattern: l.s.DonePattern.String()})
	}
	switch {
	case exit.reason != "":
		if r, stop := l.complete(exit.reason); stop {
			return stopWith(r)
		}
	case exit.claim:
		l.checkClaim()
	}
	changed := c.change.changed(c.files)
	l.claims.see(l.n, changed)
	if l.s.Strict() && l.claims.unproven(changed) {
		return stopWith(l.unprovenStop())
	}
	l.findings = nil
	l.keep.FindingsChanged(nil)
	l.maybeReview(res)
	if idle {
		l.resetStall()
	} else {
		l.noteStall(res.ResultText)
	}
	return goOn
}
