package engine

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/ralphloop/ralph_loop/analysis"
	"github.com/ralphloop/ralph_loop/breaker"
	"github.com/ralphloop/ralph_loop/events"
	"github.com/ralphloop/ralph_loop/internal/clip"
	"github.com/ralphloop/ralph_loop/ralphdir"
	"github.com/ralphloop/ralph_loop/supervise"
	"github.com/ralphloop/ralph_loop/templates"
)

// success is the reference's success pipeline (loop.md §3.3.7) and the
// dispatch after it (§3.8 row 0), with the intended branches live.
func (l *loop) success(c *call) (Result, bool) {
	l.window = l.window.Record(l.now())
	if err := l.saveWindow(); err != nil {
		l.bus.Warnf("%v", err)
	}
	l.calls++
	l.bus.Successf("✅ %s execution completed successfully", l.display())
	if l.liveOK && l.s.SessionContinuity && (l.s.Driver == "claude-code" || l.s.Driver == "cursor") {
		l.collapseStream(c) // their streams end in a "type":"result" record
	}

	l.bus.Infof("🔍 Analyzing %s response...", l.display())
	res, err := l.analyze(c)
	if err != nil {
		l.bus.Warnf("%v", err)
	}
	c.res = &res
	if res.SessionID != "" {
		if err := l.sessions.SaveID(res.SessionID, l.now()); err != nil {
			l.bus.Warnf("%v", err)
		}
	}
	l.spend(res.Usage)

	// Fix-plan progress: claimed versus checked, story collapse.
	after := c.before
	if counts, ok := l.fixPlanCounts(); ok {
		after = counts.Checked
	}
	l.applyPlanDelta(&res, c.before, after)
	if after > c.before {
		l.collapseStories()
	}
	l.refreshTasks()

	// Files changed (git) — the breaker's progress signal.
	files, numstat := l.git.changes(l.ctx, c.startSHA)
	c.files = files
	res.SetFilesModified(files)
	l.bus.Debugf("Detected %d unique files changed (commits + working tree) since loop start", files)
	if s := templates.DiffSummary(numstat); s != "" {
		l.dir.WriteFile(ralphdir.LoopDiffSummary, []byte(s+"\n"))
	}
	c.exitSignal = res.ExitSignal

	// Quality gates.
	gate := l.runGates(c, &res)
	if gate.Block {
		l.bus.Warnf("Quality gate block: suppressing completion signals")
		res.SuppressCompletion()
	}

	if err := l.saveAnalysis(res); err != nil {
		l.bus.Warnf("%v", err)
	}
	l.updateExitSignals(res)
	l.printAnalysisSummary(res)
	pending := l.exitReason()

	if res.HasErrors {
		l.bus.Warnf("Errors detected in output, check: %s", l.rel(c.outName))
		for i, line := range res.ErrorLines {
			if i == 3 {
				break
			}
			l.bus.Debugf("  %d: %s", i+1, line)
		}
	}

	it := l.iterationRecord(c, res, "success")
	it.QualityGateResult = gate.Code
	idle := l.idleEnabled() && res.HasState("idle")
	for _, st := range res.States {
		if st != "idle" {
			l.bus.Infof("Agent reported unknown state %q (ignored)", st)
		}
	}

	// Breaker: idle iterations are not "no progress"; a gate in
	// circuit-breaker mode withholds progress.
	if !idle {
		lr := breaker.LoopResult{
			Loop: l.n, FilesChanged: files, HasErrors: res.HasErrors, ErrorLine: res.FirstErrorLine(),
			OutputLength: res.OutputLength, HasPermissionDenials: res.HasPermissionDenials,
			DeniedCommands: res.DeniedCommands, AskingQuestions: res.AskingQuestions,
			CompletionSignal: res.HasCompletionSignal || res.ExitSignal,
			// .response_analysis' files_modified (the git count, else the
			// JSON figure), as the bash loop's breaker reads it; the status
			// block's FILES_MODIFIED is a claim, not progress.
			ReportedFilesModified: res.FilesModified,
		}
		if gate.WithholdProgress {
			l.bus.Warnf("Quality gate circuit-breaker: overriding progress signals")
			lr.FilesChanged, lr.HasErrors, lr.CompletionSignal, lr.ReportedFilesModified = 0, true, false, 0
			if lr.ErrorLine == "" {
				lr.ErrorLine = "quality gate failed"
			}
		}
		if r, stop := l.recordBreaker(lr, "circuit_breaker_trip"); stop {
			it.Outcome = "circuit_breaker_trip"
			l.emit(events.Event{Type: events.IterationCompleted, Iteration: it})
			return r, true
		}
	}

	// Permission denials (loop.md §3.7).
	if res.HasPermissionDenials {
		l.idleCount, l.idleSince = 0, time.Time{}
		return l.permissionDenied(c, res, it)
	}
	if idle {
		it.Outcome = "idle"
		l.idleCount++
		if l.idleSince.IsZero() {
			l.idleSince = c.started
		}
		l.bus.Infof("💤 Agent is idle (%d in a row)", l.idleCount)
		l.emit(events.Event{Type: events.IterationIdle, Iteration: it, Action: "idle", Status: "running"})
	} else {
		l.idleCount, l.idleSince = 0, time.Time{}
		l.emit(events.Event{Type: events.IterationCompleted, Iteration: it, Action: "completed", Status: "success"})
	}
	l.guard.Success()

	if pending != "" {
		return l.gracefulExit(pending), true
	}
	if l.s.DonePattern != nil && l.s.DonePattern.MatchString(res.ResultText) {
		if !gate.Block {
			l.bus.Successf("Done pattern %q matched the agent's reply", l.s.DonePattern.String())
			return l.gracefulExit("done_pattern"), true
		}
		l.bus.Warnf("Done pattern %q matched, but a quality gate blocks completion", l.s.DonePattern.String())
	}
	l.dir.Remove(ralphdir.ReviewFindings)
	l.maybeReview(res)
	if idle {
		l.resetStall()
	} else {
		l.noteStall(res.ResultText)
	}
	return Result{}, false
}

// failure is the failure pipeline (§3.3.8) with the intended handling of
// §3.8: a usage limit waits, a write-heartbeat kill retries with write-early
// context, anything else backs off and is counted by the failure guard.
func (l *loop) failure(c *call) (Result, bool) {
	o := c.outcome
	timedOut := o.Reason == supervise.TimedOut || o.Reason == supervise.Inactive
	l.stallCount, l.haveLast = 0, false // a failure is not a stalled iteration, and breaks a streak
	code := o.ExitCode
	// Every call counts for --max-loops; a failed one also ends an idle
	// streak (the next idle iteration starts at IDLE_DELAY again).
	l.calls++
	l.idleCount, l.idleSince = 0, time.Time{}
	l.dir.Remove(ralphdir.ResponseAnalysis)

	if o.Reason == supervise.WriteStalled {
		return l.readOnlyTimeout(c)
	}
	// Usage limits are read from what the agent itself said, never from
	// a timed-out call's partial output. A failed call may still have
	// cost something: it counts toward the totals and budgets.
	var res analysis.Result
	if o.Reason == supervise.Exited || timedOut {
		res, _ = l.analyze(c)
		l.spend(res.Usage)
		if !timedOut && res.UsageLimited {
			return l.usageLimit(c, res)
		}
	}

	desc := Describe(code)
	typ := events.IterationFailed
	detail := "error"
	switch o.Reason {
	case supervise.TimedOut:
		desc, typ, detail = "timed out", events.IterationTimedOut, "timeout"
	case supervise.Inactive:
		desc, typ, detail = fmt.Sprintf("timed out (no output for %s)", l.s.Inactivity), events.IterationTimedOut, "inactive"
	case supervise.StartFailed:
		desc, detail = "could not start", "start_failed"
	case supervise.OutputTooLarge:
		desc, detail = fmt.Sprintf("output too large (more than MAX_OUTPUT_MB=%d)", l.s.MaxOutput>>20), outcomeTooLarge
	case supervise.WriteFailed:
		desc, detail = "output could not be stored", writeFailure(o.Err)
	}
	l.bus.Errorf("❌ %s exited: %s (code %d)", l.display(), desc, code)
	if o.Reason == supervise.StartFailed && o.Err != nil {
		l.bus.Errorf("  %v", o.Err)
	}
	l.explainFailure(c)
	if tail := l.stderrTail(c, 3); tail != "" {
		l.bus.Errorf("  stderr (last 3 lines): %s", tail)
		l.bus.Errorf("  full stderr log: %s", l.rel(c.errName))
	}
	it := l.iterationRecord(c, res, detail)
	it.DriverExitCode = events.IntPtr(code)
	l.emit(events.Event{Type: typ, Iteration: it, Action: "failed", Status: "error", Reason: desc, DriverExitCode: events.IntPtr(code)})

	backoff, giveUp := l.guard.Failure()
	if giveUp {
		n := l.guard.Consecutive()
		msg := fmt.Sprintf("%s failed %d times in a row (last: %s, code %d); check %s and the agent's setup, then run ralph_loop again", l.display(), n, desc, code, l.rel(c.errName))
		if o.Reason == supervise.WriteFailed {
			msg = giveUpWriteMessage(n, o.Err)
		}
		l.bus.Errorf("🛑 %s", msg)
		return Result{Code: ExitFailed, Action: "failed", Status: "error", Reason: giveUpReason(detail), DriverExit: events.IntPtr(code), Message: msg}, true
	}
	if r, stop := l.limitReached(); stop {
		return r, true // no backoff after the last allowed call
	}
	of := fmt.Sprint(l.guard.Max())
	if l.guard.Max() >= math.MaxInt32 {
		of = "unlimited" // MAX_CONSECUTIVE_FAILURES=0
	}
	l.bus.Warnf("Execution failed, waiting %s before retry (failure %d of %s)...", backoff, l.guard.Consecutive(), of)
	if _, err := l.wait("failure_backoff", backoff, "Retrying in"); err != nil {
		return l.signalExit(), true
	}
	return Result{}, false
}

// readOnlyTimeout handles a write-heartbeat kill (§3.8 row 4).
func (l *loop) readOnlyTimeout(c *call) (Result, bool) {
	l.window = l.window.Record(l.now())
	l.saveWindow()
	l.bus.Warnf("Write heartbeat: no file modifications in %dm", int(l.s.WriteTimeout.Minutes()))
	l.dir.WriteFile(ralphdir.WriteHeartbeatTrigger, []byte(l.now().UTC().Format(time.RFC3339)+"\n"))
	it := l.iterationRecord(c, analysis.Result{}, "read_only_timeout")
	if r, stop := l.recordBreaker(breaker.LoopResult{Loop: l.n, ReadOnlyTimeout: true}, "read_only_circuit_breaker"); stop {
		r.Reason = "read_only_timeouts"
		l.bus.Errorf("Circuit breaker opened after repeated read-only timeouts")
		l.emit(events.Event{Type: events.IterationTimedOut, Iteration: it})
		return r, true
	}
	l.emit(events.Event{Type: events.IterationTimedOut, Iteration: it, Action: "write_timeout", Status: "running"})
	l.bus.Warnf("Write heartbeat: read-only loop, retrying with write-early context")
	return Result{}, false
}

// recordBreaker feeds one loop to the breaker; stop when it opened (the
// session is then reset with sessionReason).
func (l *loop) recordBreaker(lr breaker.LoopResult, sessionReason string) (Result, bool) {
	next, tr, err := breaker.RecordAndSave(l.dir, l.brk, lr, l.now(), l.brkCfg)
	if err != nil {
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

// permissionDenied is §3.7.
func (l *loop) permissionDenied(c *call, res analysis.Result, it *events.Iteration) (Result, bool) {
	cmds := strings.Join(res.DeniedCommands, ", ")
	if cmds == "" {
		cmds = "unknown"
	}
	res.ClearPermissionDenials()
	if err := l.saveAnalysis(res); err != nil {
		l.bus.Warnf("Failed to clear permission denial markers from response analysis")
	}
	it.Outcome = "permission_denied"
	if l.s.PermissionDenialMode == "halt" {
		l.bus.Errorf("🚫 Permission denied - halting loop")
		l.resetSession("permission_denied")
		out := l.deps.Stdout
		fmt.Fprintf(out, "%s╔════════════════════════════════════════════════════════════╗\n║  PERMISSION DENIED - Loop Halted                           ║\n╚════════════════════════════════════════════════════════════╝%s\n", l.colour(red), l.colour(reset))
		fmt.Fprintf(out, "%s was denied permission to execute commands.\n\nTo fix this:\n", l.display())
		for _, line := range l.drv.PermissionHelp(l.ralphrcPath()) {
			fmt.Fprintln(out, line)
		}
		if l.drv.SupportsAllowedTools() {
			fmt.Fprintf(out, "Current ALLOWED_TOOLS: %s\n", strings.Join(l.s.AllowedTools, ","))
		}
		l.emit(events.Event{Type: events.IterationDenied, Iteration: it})
		return Result{Code: ExitHalted, Action: "permission_denied", Status: "halted", Reason: "permission_denied",
			Message: "permission denied: " + cmds + " (allow the tools in ALLOWED_TOOLS, then run again)"}, true
	}
	l.bus.Warnf("🚫 Permission denied in loop #%d: %s", l.n, cmds)
	l.bus.Warnf("PERMISSION_DENIAL_MODE=%s - continuing execution", l.s.PermissionDenialMode)
	l.emit(events.Event{Type: events.IterationDenied, Iteration: it, Action: "permission_denied", Status: "running"})
	return Result{}, false
}

// iterationRecord is the metrics/event view of a finished call.
func (l *loop) iterationRecord(c *call, res analysis.Result, outcome string) *events.Iteration {
	it := &events.Iteration{
		Outcome:               outcome,
		Driver:                l.s.Driver,
		SessionID:             res.SessionID,
		WallMS:                c.outcome.Duration.Milliseconds(),
		DurationMS:            res.DurationMS,
		DurationAPIMS:         res.DurationAPIMS,
		NumTurns:              res.NumTurns,
		Usage:                 usageOf(res.Usage),
		FilesChanged:          c.files,
		ReportedFilesModified: res.ReportedFilesModified,
		HasErrors:             res.HasErrors,
		ExitSignal:            c.exitSignal,
		HasPermissionDenials:  res.HasPermissionDenials,
		States:                res.States,
		OutputFile:            l.rel(c.outName),
	}
	return it
}

func (l *loop) stderrTail(c *call, n int) string {
	data, found, _ := l.dir.ReadFile(c.errName)
	if !found {
		return ""
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	s := strings.TrimSpace(strings.Join(lines, " "))
	return clip.Bytes(s, 500)
}

func (l *loop) ralphrcPath() string { return l.rel(ralphdir.RalphRC) }
