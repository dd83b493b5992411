package engine

import (
	"strings"

	"github.com/ralphloop/ralph_loop/analysis"
	"github.com/ralphloop/ralph_loop/breaker"
	"github.com/ralphloop/ralph_loop/drivers"
	"github.com/ralphloop/ralph_loop/internal/clip"
	"github.com/ralphloop/ralph_loop/internal/events"
	"github.com/ralphloop/ralph_loop/internal/ralphdir"
	"github.com/ralphloop/ralph_loop/internal/supervise"
)

// A failed call, here, is counted and said as it ended; what comes next
// is the policy's (policy.go) and the iteration acts on it (act): a usage
// limit is waited for or the calls switch to the fallback, an outage is
// ridden out, a setup no retry helps stops the run, anything else backs
// off and is counted among the failures in a row. A write-heartbeat kill
// is the breaker's instead: the next call is told to write early.

// failure handles a call that did not exit 0.
func (l *loop) failure(c *call) decision {
	o := c.outcome
	timedOut := o.Reason == supervise.TimedOut || o.Reason == supervise.Inactive
	l.stall.reset() // a failure is not a stalled iteration, and breaks a streak
	code := o.ExitCode
	// Every call counts for --max-loops and among the run's failed calls;
	// a failed one also ends an idle streak (the next idle iteration starts
	// at IDLE_DELAY again).
	l.calls++
	l.countFailed()
	l.idle.end()
	l.kept.Analysis = nil
	l.save(savedAnalysis)

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
	} else if providerServed(o.Reason, nil) {
		l.quotaRecord(res) // the output cap: served, its output not read; a call of tokens unknown in the usage ledger
	}
	if providerServed(o.Reason, res.Usage) {
		l.recordCall() // the provider counted it: so does the hour's window
	}
	if o.Reason == supervise.Exited && res.UsageLimited {
		return l.onUsageLimit(c, res)
	}

	f := events.Failure{Kind: events.CallExited, Code: code}
	typ := events.IterationFailed
	detail := "error"
	switch o.Reason {
	case supervise.TimedOut:
		f.Kind, typ, detail = events.CallTimedOut, events.IterationTimedOut, "timeout"
	case supervise.Inactive:
		f.Kind, f.Inactivity, typ, detail = events.CallInactive, l.s.Inactivity, events.IterationTimedOut, "inactive"
	case supervise.StartFailed:
		f.Kind, f.Err, detail = events.CallNotStarted, o.Err, "start_failed"
	case supervise.OutputTooLarge:
		f.Kind, f.MaxMB, detail = events.CallTooLarge, l.s.MaxOutput>>20, outcomeTooLarge
	case supervise.WriteFailed:
		f.Kind, f.Err, f.DiskFull, detail = events.CallNotStored, o.Err, ralphdir.NoSpace(o.Err), writeFailure(o.Err)
	}
	// The console says how the call failed, what to do when the loop
	// stopped it for its output, and the end of its stderr.
	stderr := l.stderrLines(c)
	ended := events.Call{Outcome: typ, Failure: &f, DriverExitCode: new(code), Agent: l.display()}
	if tail := clip.Bytes(strings.TrimSpace(strings.Join(lastN(stderr, 3), " ")), 500); tail != "" {
		ended.StderrTail, ended.StderrLog = tail, l.rel(c.errName)
	}
	ended.Iteration = l.iterationRecord(c, res, detail)
	ended.Iteration.DriverExitCode = new(code)
	l.bus.CallEnded(l.at("failed", "error"), ended)

	// What the agent said of its failure (the provider's outage is
	// waited out, a setup it cannot work with stops the run), else the
	// failures in a row: the policy decides.
	return l.policy.failed(l.failedCall(c, f, detail, l.diagnose(c, res, stderr)))
}

// failedCall is call c, which failed as f (detail) with diagnosis d, as
// the policy weighs it.
func (l *loop) failedCall(c *call, f events.Failure, detail string, d drivers.Diagnosis) failedCall {
	return failedCall{failure: f, detail: detail, diagnosis: d, agent: l.display(), log: l.rel(c.errName)}
}

// onUsageLimit handles a call stopped by its provider's usage limit: the
// call is recorded, then the policy decides: with a fallback, go on at
// once with the driver that is not limited; else wait for the (earlier)
// reset, or stop when it is too far.
func (l *loop) onUsageLimit(c *call, res analysis.Result) decision {
	limited := l.usageWindow(res.Limit())
	l.swarmLimitHit(res)
	it := l.iterationRecord(c, res, "api_limit")
	it.DriverExitCode = new(c.outcome.ExitCode)
	l.bus.CallEnded(l.at("", ""), events.Call{Outcome: events.IterationFailed, Iteration: it, Agent: l.drv.DisplayName(), Limit: &limited})
	return l.policy.usageLimited(limited, res.UsageLimitResetsAt, res.UsageLimitReason)
}

// errorReply handles a call that exited 0 but whose result is an error
// the driver's patterns know: some Claude Code versions end `claude -p`
// with exit 0 and is_error: true when the API failed. A provider outage
// is waited out and a permanent failure stops the run, as for a call
// that exited non-zero; the breaker never sees it. Any other reply
// (failed=false) is analysed as one.
func (l *loop) errorReply(c *call, res analysis.Result) (next decision, failed bool) {
	if !res.IsError || res.UsageLimited {
		return decision{}, false
	}
	d := l.diagnose(c, res, l.stderrLines(c))
	if !l.policy.takes(d) {
		return decision{}, false
	}
	f := events.Failure{Kind: events.CallExited} // exit 0, yet it failed
	l.failedReply(c, res, f, "error")
	return l.policy.failed(l.failedCall(c, f, "error", d)), true
}

// noRequest handles a call that exited 0 with a reply that did nothing
// (analysis.Result.NoRequest: "I don't see a request in your message"):
// a failed call, which the failure guard counts and backs off from, never
// a loop of the agent's work for the breaker or the exit signals.
func (l *loop) noRequest(c *call, res analysis.Result) decision {
	f := events.Failure{Kind: events.CallExited, NoRequest: true}
	l.failedReply(c, res, f, "no_request")
	return l.policy.failed(l.failedCall(c, f, "no_request", drivers.Diagnosis{}))
}

// failedReply counts and reports a call that exited 0 with a reply res
// that is a failure f (detail: its outcome's): among the run's failed
// calls, in the hour's window when the provider served it; it breaks the
// streaks a reply builds and leaves no analysis.
func (l *loop) failedReply(c *call, res analysis.Result, f events.Failure, detail string) {
	l.countFailed()
	if providerServed(supervise.Exited, res.Usage) {
		l.recordCall()
	}
	l.stall.reset()
	l.idle.end()
	l.kept.Analysis = nil
	l.save(savedAnalysis)
	it := l.iterationRecord(c, res, detail)
	it.DriverExitCode = new(0)
	l.bus.CallEnded(l.at("failed", "error"), events.Call{Outcome: events.IterationFailed, Iteration: it, Failure: &f, DriverExitCode: new(0), Agent: l.display()})
}

// stderrLines are the lines of a failed call's stderr log (none when
// there is none).
func (l *loop) stderrLines(c *call) []string {
	data, found, _ := l.project.CallLog(c.errName)
	if !found || len(data) == 0 {
		return nil
	}
	return strings.Split(strings.TrimRight(string(data), "\n"), "\n")
}

// lastN are the last n of lines (all of them when fewer).
func lastN(lines []string, n int) []string {
	if len(lines) > n {
		return lines[len(lines)-n:]
	}
	return lines
}

// readOnlyTimeout handles a write-heartbeat kill: the breaker counts it,
// and the next call is told to write early.
func (l *loop) readOnlyTimeout(c *call) decision {
	l.recordCall()
	l.bus.Note(events.NoWrites{After: l.s.WriteTimeout})
	l.kept.WriteTimeout = l.now() // saved with the breaker's record
	it := l.iterationRecord(c, analysis.Result{}, "read_only_timeout")
	if r, stop := l.recordBreaker(breaker.LoopResult{Loop: l.n, ReadOnlyTimeout: true}, "read_only_circuit_breaker"); stop {
		r.Reason = "read_only_timeouts"
		l.bus.CallEnded(l.at("", ""), events.Call{Outcome: events.IterationTimedOut, Iteration: it, BreakerOpened: true, ResetCommand: l.resetCommand()})
		return decision{then: stopRun, result: r}
	}
	l.bus.CallEnded(l.at("write_timeout", "running"), events.Call{Outcome: events.IterationTimedOut, Iteration: it}) // the next call writes early
	return decision{}
}

// permissionDenied handles a call whose tools were denied: halt with the
// fix in PERMISSION_DENIAL_MODE=halt, otherwise warn and go on (the breaker
// counts denials in threshold mode).
func (l *loop) permissionDenied(c *call, res analysis.Result, it *events.Iteration) step {
	cmds := strings.Join(res.DeniedCommands, ", ")
	if cmds == "" {
		cmds = "unknown"
	}
	res.ClearPermissionDenials()
	if err := l.saveAnalysis(res.ResponseAnalysis()); err != nil {
		l.bus.Note(events.DenialsNotCleared)
	}
	it.Outcome = "permission_denied"
	if l.s.PermissionDenialMode == "halt" {
		l.bus.Note(events.PermissionDenied{Commands: cmds, Loop: l.n, Halt: true})
		l.resetSession("permission_denied")
		l.bus.Note(events.PermissionHelp{Agent: l.display(), Help: l.drv.PermissionHelp(l.ralphrcPath()),
			ShowTools: l.drv.SupportsAllowedTools(), AllowedTools: l.s.AllowedTools})
		l.bus.CallEnded(l.at("", ""), events.Call{Outcome: events.IterationDenied, Iteration: it})
		return stopWith(Result{Code: ExitHalted, Action: "permission_denied", Status: "halted", Reason: "permission_denied",
			Stop: events.Stop{Kind: events.StopDenied, Commands: cmds}})
	}
	l.bus.Note(events.PermissionDenied{Commands: cmds, Mode: l.s.PermissionDenialMode, Loop: l.n})
	l.bus.CallEnded(l.at("permission_denied", "running"), events.Call{Outcome: events.IterationDenied, Iteration: it})
	return goOn
}

func (l *loop) ralphrcPath() string { return l.rel(ralphdir.RalphRC) }
