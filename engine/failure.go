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
)

// failure handles a call that did not exit 0: a usage limit waits, a
// write-heartbeat kill retries with write-early context, anything else
// backs off and is counted by the failure guard.
func (l *loop) failure(c *call) step {
	o := c.outcome
	timedOut := o.Reason == supervise.TimedOut || o.Reason == supervise.Inactive
	l.stallCount, l.haveLast = 0, false // a failure is not a stalled iteration, and breaks a streak
	code := o.ExitCode
	// Every call counts for --max-loops; a failed one also ends an idle
	// streak (the next idle iteration starts at IDLE_DELAY again).
	l.calls++
	l.idleCount, l.idleSince = 0, time.Time{}
	l.lastAnalysis = nil
	l.bus.Record(events.AnalysisCleared{})

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
		return stopWith(Result{Code: ExitFailed, Action: "failed", Status: "error", Reason: giveUpReason(detail), DriverExit: events.IntPtr(code), Message: msg})
	}
	if r, stop := l.limitReached(); stop {
		return stopWith(r) // no backoff after the last allowed call
	}
	of := fmt.Sprint(l.guard.Max())
	if l.guard.Max() >= math.MaxInt32 {
		of = "unlimited" // MAX_CONSECUTIVE_FAILURES=0
	}
	l.bus.Warnf("Execution failed, waiting %s before retry (failure %d of %s)...", backoff, l.guard.Consecutive(), of)
	if _, err := l.wait("failure_backoff", backoff, "Retrying in"); err != nil {
		return stopWith(l.signalExit())
	}
	return goOn
}

// explainFailure adds the one line that says what to do after a call that
// the loop itself stopped for its output.
func (l *loop) explainFailure(c *call) {
	switch o := c.outcome; o.Reason {
	case supervise.WriteFailed:
		l.bus.Errorf("%s", writeFailedLine(o.Err))
	case supervise.OutputTooLarge:
		l.bus.Errorf("  the agent printed more than MAX_OUTPUT_MB=%d MB and was stopped; %s keeps the head and the tail (raise MAX_OUTPUT_MB, or 0 for no limit, if this output was expected)", l.s.MaxOutput>>20, l.rel(c.outName))
	}
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

// readOnlyTimeout handles a write-heartbeat kill: the breaker counts it,
// and the next call is told to write early.
func (l *loop) readOnlyTimeout(c *call) step {
	l.window = l.window.Record(l.now())
	l.saveWindow()
	l.bus.Warnf("Write heartbeat: no file modifications in %dm", int(l.s.WriteTimeout.Minutes()))
	l.writeTimedOut = true
	l.bus.Record(events.WriteTimeoutMarked{At: l.now()})
	it := l.iterationRecord(c, analysis.Result{}, "read_only_timeout")
	if r, stop := l.recordBreaker(breaker.LoopResult{Loop: l.n, ReadOnlyTimeout: true}, "read_only_circuit_breaker"); stop {
		r.Reason = "read_only_timeouts"
		l.bus.Errorf("Circuit breaker opened after repeated read-only timeouts")
		l.emit(events.Event{Type: events.IterationTimedOut, Iteration: it})
		return stopWith(r)
	}
	l.emit(events.Event{Type: events.IterationTimedOut, Iteration: it, Action: "write_timeout", Status: "running"})
	l.bus.Warnf("Write heartbeat: read-only loop, retrying with write-early context")
	return goOn
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
		return stopWith(Result{Code: ExitHalted, Action: "permission_denied", Status: "halted", Reason: "permission_denied",
			Message: "permission denied: " + cmds + " (allow the tools in ALLOWED_TOOLS, then run again)"})
	}
	l.bus.Warnf("🚫 Permission denied in loop #%d: %s", l.n, cmds)
	l.bus.Warnf("PERMISSION_DENIAL_MODE=%s - continuing execution", l.s.PermissionDenialMode)
	l.emit(events.Event{Type: events.IterationDenied, Iteration: it, Action: "permission_denied", Status: "running"})
	return goOn
}

func (l *loop) ralphrcPath() string { return l.rel(ralphdir.RalphRC) }
