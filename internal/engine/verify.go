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
	heldRun  int             // the gate run a hold was last announced for
	runs     int             // gate runs so far
}

// blocking reports whether a failing gate of this mode keeps the run from
// ending as complete: every mode but warn.
func blocking(mode string) bool { return mode != "" && mode != gates.ModeWarn }

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
	d, err = gates.Run(l.ctx, cfg, in, l.now())
	if err != nil || !d.Ran {
		if name != "" {
			l.logs.RemoveLog(name)
		}
		return d, false
	}
	l.gate.runs++
	l.gate.fresh, l.gate.failures, l.gate.log = true, d.Failures, ""
	if len(d.Failures) == 0 && name != "" {
		l.logs.RemoveLog(name)
	} else if name != "" {
		l.gate.log = l.rel(name)
	}
	if d.Results != nil {
		d.Results.Log = l.gate.log
		l.gateResults = d.Results
		l.keep.GatesRecorded(d.Results)
		l.gates = &events.Gates{OverallStatus: d.Results.OverallStatus, Mode: d.Results.Mode, Failing: failingCommands(d.Failures), Log: l.gate.log}
	}
	if d.Warning != "" {
		l.bus.Note(events.Logged{Level: events.Warn, Text: d.Warning})
	}
	for _, fl := range d.Failures {
		l.bus.Note(events.GateFailed{Failure: fl, Log: l.gate.log})
	}
	return d, true
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

// complete ends the run as complete for reason, unless a blocking quality
// gate fails: done means verified. Gates that have not run since the last
// agent call run now, whatever QUALITY_GATE_ON_COMPLETION_ONLY says (this
// is the completion). When one fails in block or circuit-breaker mode the
// run goes on (stop false) and the next call is told which gate fails and
// how its output ends; the breaker and --max-loops bound it as any loop.
// In warn mode the run completes and its evidence says the gates fail.
func (l *loop) complete(reason string) (Result, bool) {
	if cfg := l.gatesConfig(); cfg.Enabled() {
		if !l.gate.fresh {
			in := gates.Input{Loop: l.n, ExitSignal: true, HaveAnalysis: true}
			if l.lastAnalysis != nil {
				in.TestsStatus = l.lastAnalysis.Analysis.TestsStatus
			}
			if _, ok := l.gateRun(in, callStamp(l.now(), l.n)); !ok {
				return l.interrupted() // stopped while the gates ran: not verified
			}
		}
		if holds(reason, l.gate.failures) && blocking(cfg.Mode) {
			l.holdCompletion(reason, cfg.Mode)
			return Result{}, false
		}
	}
	l.gate.held = nil
	return l.gracefulExit(reason), true
}

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

// holdCompletion keeps the run going past a completion (reason) while
// gates fail, announcing it once per gate run; the next call's context
// says why.
func (l *loop) holdCompletion(reason, mode string) {
	plan := l.planCount()
	fs := l.gate.failures
	h := &templates.Held{PlanDone: plan.Done, PlanTotal: plan.Total, Gate: fs[0].Gate, Command: fs[0].Command,
		ExitCode: fs[0].ExitCode, TimedOut: fs[0].TimedOut, Tail: fs[0].Tail, More: len(fs) - 1}
	if l.gate.heldRun != l.gate.runs {
		l.bus.Note(events.CompletionHeld{Reason: reason, Plan: plan, Failures: fs, Log: l.gate.log, Mode: mode})
	}
	l.gate.held, l.gate.heldRun = h, l.gate.runs
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
// last ran in this run, and the last commit.
func (l *loop) evidence() events.Evidence {
	ev := events.Evidence{Plan: l.planCount()}
	if cfg := l.gatesConfig(); cfg.Enabled() {
		ev.Mode = cfg.Mode
		if ev.Mode == "" {
			ev.Mode = gates.ModeWarn
		}
		ev.Gates = gates.StatusPass
		if len(l.gate.failures) > 0 {
			ev.Gates, ev.Failures, ev.Log = gates.StatusFail, l.gate.failures, l.gate.log
		}
	}
	if id, subject, ok := l.git.LastCommit(l.ctx); ok {
		ev.Commit, ev.Subject = id, subject
	}
	return ev
}
