package engine

import (
	"context"
	"errors"
	"os"
	"time"

	"github.com/ralphloop/ralph_loop/analysis"
	"github.com/ralphloop/ralph_loop/breaker"
	"github.com/ralphloop/ralph_loop/drivers"
	"github.com/ralphloop/ralph_loop/internal/config"
	"github.com/ralphloop/ralph_loop/internal/events"
	"github.com/ralphloop/ralph_loop/internal/observe"
	"github.com/ralphloop/ralph_loop/internal/ralphdir"
	"github.com/ralphloop/ralph_loop/internal/store"
	"github.com/ralphloop/ralph_loop/ratelimit"
)

// loop is one run's mutable state.
type loop struct {
	s       config.Config
	deps    Deps
	ctx     context.Context
	bus     *observe.Fan // the observers: every report goes through it
	dir     *ralphdir.Dir
	project Project
	git     Repo
	drv     drivers.Driver

	n      int // loop number (agent iterations started)
	calls  int // agent calls made in this run
	failed int // of them, the calls that failed
	retry  int // failed calls in a row
	brkCfg breaker.Config
	state  State
	logs   Logs
	policy *policy // failures, outages, usage limits and the fallback: what to do next
	totals events.Usage

	// The kept state, as the store loaded it at start-up and as the
	// engine changed it since: decisions read it, never the files. It is
	// saved whole at the save points (keep.go); lost is the first save
	// that failed for a full disk, which stops the run before its next call.
	kept store.Kept
	lost error

	exitWhy analysis.ExitDecision // the last exit condition met, said when it ends the run

	answers *answers // the person's answers on stdin, once a question is asked
	ask     asking   // the agent's question to the person (ask.go)

	plan  planCopy // @fix_plan.md as last read, with its task counts
	gates *events.Gates
	gate  gateState // the quality gates' last run in this run

	idle     idleStreak // idle iterations in a row
	stall    stallWatch // replies in a row that changed nothing
	tree     treeWatch  // the working tree's mark where the previous loop left it
	claims   claimWatch // the agent's refused claims of done in a row
	tasks    taskWatch  // VERIFY_COMMAND: where the task under way started, failed checks
	goalDone bool       // --goal: the check passed

	started     bool // start-up reached the session files: a stop resets them
	liveOK      bool // live streaming still possible (falls back for the process)
	format      string
	lastSummary string     // .loop_diff_summary read before it is replaced
	cliVersion  string     // as its install (installedVersion) or its own output (agentVersion) said it; "" unknown
	cliFrom     string     // where cliVersion came from
	agentPath   string     // where the start-up check found the CLI
	usage       usageState // what the agent CLIs said of the provider's usage windows
	taskBrief   string     // the next call's tracker item, for its context (tasks.go)
	runStart    string     // the commit the run's first call started from: the run's commits follow it
}

func (l *loop) now() time.Time { return l.deps.Now() }

// spend adds what a call reported using to the run's totals (budgets).
func (l *loop) spend(u *analysis.Usage) {
	if eu := usageOf(u); eu != nil {
		l.totals = l.totals.Add(*eu)
	}
}

// at is the moment of a report: the run's snapshot, and status.json's
// action and status (empty: unchanged).
func (l *loop) at(action, status string) events.Moment {
	return events.Moment{Snapshot: l.snapshot(), Action: action, Status: status, Question: l.ask.shown}
}

// warn reports err, which the loop carries on after.
func (l *loop) warn(err error) { l.bus.Warned(time.Time{}, events.Warn, err) }

func (l *loop) snapshot() events.Snapshot {
	return events.Snapshot{
		Loop:           l.n,
		CallsThisHour:  l.kept.Window.Count,
		Calls:          l.calls,
		FailedCalls:    l.failed,
		MaxCalls:       l.s.MaxCallsPerHour,
		NextReset:      ratelimit.NextResetClock(l.now()),
		TasksCompleted: l.plan.done,
		TasksTotal:     l.plan.total,
		BreakerState:   string(l.kept.Breaker.State),
		Totals:         l.totals,
		QualityGates:   l.gates,
		UsageLimits:    l.usage.known(),
		ActiveDriver:   l.activeDriver(),
	}
}

// Run runs the loop until the project is complete, a stop condition is
// met, or ctx (the Stopper's) is canceled.
func Run(s config.Config, deps Deps) Result {
	l := newLoop(s, deps)
	res, stop := l.openAtStart()
	if !stop {
		res = l.run()
	}
	l.tasksEnd(res)
	l.finish(res)
	return res
}

// newLoop is the loop of a run (or a dry run) before its start-up checks.
func newLoop(s config.Config, deps Deps) *loop {
	return &loop{s: s, deps: deps, bus: deps.Bus, dir: deps.Dir, project: deps.Project, state: deps.State, logs: deps.Logs,
		git: deps.Repo, format: s.OutputFormat, liveOK: s.Live, ctx: deps.Stopper.Context(), policy: newPolicy(s, deps.Now)}
}

func (l *loop) run() Result {
	if err := l.startup(); err != nil {
		return l.startupFailure(err)
	}
	l.plan.count()
	l.bus.RunStarted(l.at("", ""), events.Start{Driver: l.s.Driver, Version: l.deps.Version})
	if c, found := l.plan.counts(); !l.goal() && (!found || c.Total() == 0) {
		l.bus.Note(events.EmptyPlan{File: l.s.FixPlanFile, Missing: !found})
	}
	if l.checkGoalFirst() {
		return l.signalExit()
	}
	l.resumeQuestion()
	if r, stop := l.askGate(); stop {
		return r // a question an earlier run left open
	}

	for {
		if s := l.iteration(); s.stop {
			return s.result
		}
	}
}

// startupFailure is the run's end when start-up failed (err): the signal's
// when a stop cut it short; otherwise the bash loop's final record
// (unexpected_exit / stopped / error), which bmalph shows as blocked, with
// the failed check said (or the error warned of).
func (l *loop) startupFailure(err error) Result {
	if r, stop := l.interrupted(); stop {
		return r
	}
	r := Result{Code: ExitError, Action: "unexpected_exit", Status: "stopped", Reason: "error", DriverExit: new(1), Err: err}
	var se *StartupError
	if errors.As(err, &se) {
		l.bus.Note(se.Failed)
		return r
	}
	l.bus.Warned(time.Time{}, events.Error, err)
	r.Stop = events.Stop{Kind: events.StopError, Err: err}
	return r
}

// interrupted turns a canceled context into the signal exit.
func (l *loop) interrupted() (Result, bool) {
	if l.ctx.Err() == nil {
		return Result{}, false
	}
	return l.signalExit(), true
}

func (l *loop) signalExit() Result {
	se := Cause(l.ctx)
	if se == nil {
		se = &SignalError{Name: "SIGTERM", Code: ExitSIGTERM}
	}
	l.bus.Note(events.Interrupted{Signal: se.Name})
	l.stopReset("manual_interrupt")
	return Result{Code: se.Code, Action: "interrupted", Status: "stopped", Reason: se.Name,
		Stop: events.Stop{Kind: events.StopSignal, Signal: se.Name}}
}

// finish reports the run's end (the final status.json, run_finished).
func (l *loop) finish(r Result) {
	l.save(savedEnd)
	if r.Status == "" {
		return
	}
	e := events.End{Reason: r.Reason, ExitCode: r.Code, DriverExitCode: r.DriverExit, Evidence: r.evidence, Condition: r.condition}
	if r.Stop.Kind != events.StopNone {
		e.Stop = &r.Stop
	}
	l.bus.Stopped(l.at(r.Action, r.Status), e)
}

func (l *loop) resetSession(reason string) {
	if !l.started {
		return
	}
	// The reset empties .exit_signals (when there is one) and removes
	// .response_analysis: the in-memory copies follow.
	if l.kept.HaveExitSignals {
		l.kept.ExitSignals = analysis.ExitSignals{}
	}
	l.kept.Analysis = nil
	l.sessionStep(store.SessionStep{Kind: store.SessionReset, Reason: reason, Loop: l.n})
	l.save(savedReset)
}

// stopReset resets the session for a stop the agent's work did not cause
// (a signal, a breaker open when the run starts), as the bash loop does,
// unless KEEP_SESSION_ON_STOP keeps it for the next run, which is said
// as a reset is.
func (l *loop) stopReset(reason string) {
	if l.s.KeepSessionOnStop {
		if l.started {
			l.sessionStep(store.SessionStep{Kind: store.SessionKeep, Reason: reason, Loop: l.n})
			l.save(savedReset)
		}
		return
	}
	l.resetSession(reason)
}

func (l *loop) gracefulExit(reason string) Result {
	l.bus.Note(events.GracefulExit{Reason: reason})
	l.resetSession("project_complete")
	ev := l.evidence()
	return Result{Code: ExitComplete, Action: "graceful_exit", Status: "completed", Reason: reason, evidence: &ev}
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}
