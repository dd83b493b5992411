package engine

import (
	"github.com/ralphloop/ralph_loop/internal/events"
	"github.com/ralphloop/ralph_loop/internal/fixplan"
	"github.com/ralphloop/ralph_loop/internal/gates"
	"github.com/ralphloop/ralph_loop/templates"
)

// gateState is what the loop keeps of the quality gates' last run, for
// the completion check and the next call's context.
type gateState struct {
	// fresh: the gates ran after the last agent call started, so their
	// verdict is the project's as it stands.
	fresh    bool
	failures []gates.Failure
	log      string          // the failing gates' whole output, relative to the project ("" when all passed)
	held     *templates.Held // for the next call's context
	heldAt   *[2]int         // the calls and gate runs a hold was last announced at (nil: none yet)
	runs     int             // gate runs so far
}

// gateRun runs the gates with their whole output going to a log of the
// call named stamp (kept only when a gate failed), keeps and records the
// results, and reports every failure; ok is false when the gates did not
// run (none due, or the loop is being stopped).
func (l *loop) gateRun(in gates.Input, stamp string) (d gates.Decision, ok bool) {
	cfg := l.gatesConfig()
	name := "logs/quality_gates_" + stamp + ".log"
	f, err := l.logs.CreateLog(name)
	if err == nil {
		defer f.Close()
		cfg.Log, cfg.LogMax = f, l.s.MaxOutput
	} else {
		l.warn(err)
		name = ""
	}
	l.plan.stale() // a gate's command may change it
	l.tree.stale = true
	d, err = gates.Run(l.ctx, cfg, in, l.now())
	if err != nil || !d.Ran {
		if name != "" {
			l.logs.RemoveLog(name)
		}
		return d, false
	}
	l.gate.runs++
	l.gate.fresh, l.gate.failures, l.gate.log = true, d.Failures, ""
	l.noteGoal(d)
	if len(d.Failures) == 0 && name != "" {
		l.logs.RemoveLog(name)
	} else if name != "" {
		l.gate.log = l.rel(name)
	}
	if d.Results != nil {
		d.Results.Log = l.gate.log
		l.kept.Gates = d.Results // saved with the call's analysis
		l.gates = &events.Gates{OverallStatus: d.Results.OverallStatus, Mode: d.Results.Mode, Failing: failingCommands(d.Failures), Log: l.gate.log}
	}
	if d.Warning != "" {
		l.bus.Note(events.Logged{Level: events.Warn, Text: d.Warning})
	}
	for _, fl := range d.Failures {
		l.bus.Note(events.GateFailed{Failure: gateFailure(fl), Log: l.gate.log})
	}
	return d, true
}

// gateFailure is a failed gate as a person is told of it.
func gateFailure(f gates.Failure) events.GateFailure {
	return events.GateFailure{Gate: f.Gate, Command: f.Command, ExitCode: f.ExitCode, TimedOut: f.TimedOut, Reported: f.Gate == gates.GateReported}
}

// gateFailures are failed gates as a person is told of them.
func gateFailures(fs []gates.Failure) []events.GateFailure {
	out := make([]events.GateFailure, len(fs))
	for i, f := range fs {
		out[i] = gateFailure(f)
	}
	return out
}

// failingCommands names the failed gates as status.json lists them.
func failingCommands(fs []gates.Failure) []string {
	var out []string
	for _, f := range fs {
		if f.Command == "" {
			out = append(out, f.Gate+": FAILING")
			continue
		}
		out = append(out, f.Command)
	}
	return out
}

// complete ends the run as complete for reason, unless the completion is
// refused (refuse): done means verified. Gates that have not run since the
// last agent call run now, whatever QUALITY_GATE_ON_COMPLETION_ONLY says
// (this is the completion). When one fails in block or circuit-breaker
// mode, or (COMPLETION_MODE=strict) any fails or a task is open, the run
// goes on (stop false) and the next call is told why; the breaker,
// --max-loops and, in strict mode, the claims in a row bound it. In warn
// mode the run completes and its evidence says the gates fail.
func (l *loop) complete(reason string) (Result, bool) {
	strict, plan := l.s.Strict(), l.planCount()
	cfg := l.gatesConfig()
	// Open tasks refuse a strict completion whatever the gates say: no
	// gate is run for it.
	if open := plan.Total - plan.Done; !(strict && plan.Have && open > 0) && cfg.Enabled() && !l.gate.fresh {
		in := gates.Input{Loop: l.n, ExitSignal: true, HaveAnalysis: true}
		if l.kept.Analysis != nil {
			in.TestsStatus = l.kept.Analysis.Analysis.TestsStatus
		}
		if _, ok := l.gateRun(in, callStamp(l.now(), l.n)); !ok {
			return l.interrupted() // stopped while the gates ran: not verified
		}
	}
	var failures []gates.Failure
	if cfg.Enabled() {
		failures = l.gate.failures
	}
	if why, refused := refuse(strict, cfg.Mode, reason, plan, failures); refused {
		l.holdCompletion(reason, cfg.Mode, why)
		return Result{}, false
	}
	l.gate.held = nil
	l.sayExitCondition(reason)
	return l.gracefulExit(reason), true
}

// completion acts on the exit decision after a reply (exit): a
// completion met ends the run unless it is refused (complete), a strict
// run's claim of done is checked as one (checkClaim); then the loop is
// counted among the refused claims in a row, and a strict run stops when
// its agent claimed done again having changed nothing.
func (l *loop) completion(c *call, exit exitCall) (Result, bool) {
	if exit.pattern {
		l.bus.Note(events.DoneMatched{Pattern: l.s.DonePattern.String()})
	}
	switch {
	case exit.reason != "":
		if r, stop := l.complete(exit.reason); stop {
			return r, true
		}
	case exit.claim:
		l.checkClaim()
	}
	changed := c.change.changed(c.files)
	l.claims.see(l.n, changed)
	if l.s.Strict() && l.claims.unproven(changed) {
		return l.unprovenStop(), true
	}
	return Result{}, false
}

// checkClaim answers a strict run's agent that said it is done where no
// exit condition followed (one exit signal): a claim the plan or the gates
// refute is refused and the next call is told why, as a completion is.
func (l *loop) checkClaim() {
	var failures []gates.Failure
	if l.gatesConfig().Enabled() {
		failures = l.gate.failures
	}
	if why, refused := refuse(true, "", "exit_signal", l.planCount(), failures); refused {
		l.holdCompletion("exit_signal", l.s.QualityGateMode, why)
	}
}

// holdCompletion keeps the run going past a completion (reason) that why
// refuses, announcing it once per call and gate run; the next call's
// context says why, and the loop counts it as a refused claim.
func (l *loop) holdCompletion(reason, mode string, why refusal) {
	plan := l.planCount()
	fs := why.failures
	h := &templates.Held{PlanDone: plan.Done, PlanTotal: plan.Total, Open: why.open}
	if len(fs) > 0 {
		h.Gate, h.Command, h.ExitCode, h.TimedOut, h.Tail, h.More = fs[0].Gate, fs[0].Command, fs[0].ExitCode, fs[0].TimedOut, fs[0].Tail, len(fs)-1
	}
	if at := [2]int{l.calls, l.gate.runs}; l.gate.heldAt == nil || *l.gate.heldAt != at {
		l.bus.Note(events.CompletionHeld{Reason: reason, Plan: plan, Failures: gateFailures(fs), Log: l.gate.log, Mode: mode,
			Strict: l.s.Strict(), Open: why.open})
		l.gate.heldAt = &at
	}
	l.gate.held = h
	l.claims.now = &why
}

// planCount is the plan's ticked and total checkboxes.
func (l *loop) planCount() events.PlanCount {
	c, ok := l.fixPlanCounts()
	if !ok {
		return events.PlanCount{}
	}
	return events.PlanCount{Done: c.Checked, Total: c.Total(), Have: true, SetAside: fixplan.SetAsideCount(l.plan.data)}
}

// evidence is what a completed run rests on: the plan, the gates as they
// last ran in this run, and the commits this run made (the agent's: the
// loop commits nothing once its calls began), not a commit from before.
func (l *loop) evidence() events.Evidence {
	ev := events.Evidence{Plan: l.planCount()}
	if l.goal() {
		ev.Check = l.s.GoalCheck
	}
	if cfg := l.gatesConfig(); cfg.Enabled() {
		ev.Mode = cfg.Mode
		if ev.Mode == "" {
			ev.Mode = gates.ModeWarn
		}
		ev.Gates = gates.StatusPass
		if len(l.gate.failures) > 0 {
			ev.Gates, ev.Failures, ev.Log = gates.StatusFail, gateFailures(l.gate.failures), l.gate.log
		}
	}
	if id, subject, ok := l.git.LastCommit(l.ctx); ok {
		ev.Repo = true
		if ev.Commits = len(l.git.CommitsSince(l.ctx, l.runStart)); ev.Commits > 0 {
			ev.Commit, ev.Subject = id, subject
		}
	}
	return ev
}
