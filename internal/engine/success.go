package engine

import (
	"github.com/ralphloop/ralph_loop/analysis"
	"github.com/ralphloop/ralph_loop/breaker"
	"github.com/ralphloop/ralph_loop/internal/events"
	"github.com/ralphloop/ralph_loop/internal/fixplan"
	"github.com/ralphloop/ralph_loop/templates"
)

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
	l.save(savedReply)
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

	files, numstat, mark, ok := l.git.ChangedSince(l.ctx, c.startSHA)
	c.files = files
	c.change = l.changeTo(c, c.before, after, mark, ok)
	res.SetFilesModified(files)
	l.bus.Note(events.FilesChanged{Count: files})
	if s := templates.DiffSummary(numstat); s != "" {
		l.kept.DiffSummary = s
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

// recordAnalysis keeps the analysis and the exit signals, and shows the
// analysis box and the error lines.
func (l *loop) recordAnalysis(c *call, res analysis.Result) {
	l.updateExitSignals(res)
	l.saveAnalysis(res.ResponseAnalysis())
	l.bus.Note(events.Analysed{Loop: l.n, ExitSignal: res.ExitSignal, Confidence: res.ConfidenceScore,
		TestOnly: res.IsTestOnly, FilesChanged: res.FilesModified, Summary: res.WorkSummary})
	if res.HasErrors {
		l.bus.Note(events.OutputErrors{File: l.rel(c.outName), Errors: res.ErrorLines[:min(3, len(res.ErrorLines))]})
	}
}

// noteStates notes the states a reply reported that the loop does not
// know (it knows idle).
func (l *loop) noteStates(res analysis.Result) {
	for _, st := range res.States {
		if st != "idle" {
			l.bus.Note(events.UnknownState{Name: st})
		}
	}
}

// feedBreaker gives the breaker this loop's progress (progressOf; an
// asking call's waits for its question to end, and is recorded only when
// nobody answers). stop when it opened: the call's end says so, with the
// refused claims it cuts short.
func (l *loop) feedBreaker(c *call, res analysis.Result, gate gateResult, exit exitCall, it *events.Iteration) (step, bool) {
	lr := l.progressOf(c, res, gate)
	if l.deferBreaker(lr) {
		return goOn, false
	}
	r, stop := l.recordBreaker(lr, "circuit_breaker_trip")
	if !stop {
		return goOn, false
	}
	r.Stop.Claims = l.breakerClaims(c, exit)
	it.Outcome = "circuit_breaker_trip"
	l.bus.CallEnded(l.at("", ""), events.Call{Outcome: events.IterationCompleted, Iteration: it, BreakerOpened: true, ResetCommand: l.resetCommand()})
	return stopWith(r), true
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
