package engine

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/ralphloop/ralph_loop/analysis"
	"github.com/ralphloop/ralph_loop/drivers"
	"github.com/ralphloop/ralph_loop/internal/events"
	"github.com/ralphloop/ralph_loop/internal/store"
	"github.com/ralphloop/ralph_loop/internal/supervise"
)

// call is one agent call in flight and what came of it.
type call struct {
	stamp      string // <local time to the second>-<ms>_loop<N>, unique per call
	outName    string // logs/claude_output_<stamp>.log
	errName    string
	startSHA   string
	before     int    // checked boxes before the call
	planBefore []byte // the plan as read before the call
	ticked     []string
	sessionID  string
	resumed    bool
	calls      int // .call_count after this call, if it succeeds
	outcome    supervise.Outcome
	started    time.Time
	res        *analysis.Result
	exitSignal bool                 // before quality-gate override (metrics)
	claimed    bool                 // the agent said it is done (EXIT_SIGNAL), before any override
	files      int                  // files changed in git by the call, loop-owned files left out
	change     loopChange           // what the call changed since the previous loop's end
	base       treeWatch            // the working tree's mark the change is measured from
	verdicts   []events.TaskVerdict // VERIFY_COMMAND's verdicts on the ticked tasks
	stream     streamCopy           // the whole stream, when the output log is cut down to its result

	reading   *analysis.Stream // the analysis, fed the bytes the output log takes
	collapsed []byte           // what the output log holds once cut down to its result
}

// streamCopy is a live call's whole stream, kept in its own log
// (agentcall.Reply.Stream).
type streamCopy interface {
	Finish() error
	Result() (last []byte, found, over bool)
}

// streamName is the log that keeps a live call's whole stream.
func (c *call) streamName() string { return strings.TrimSuffix(c.outName, ".log") + "_stream.log" }

// iteration is one turn of the loop, top to bottom in the bash loop's
// order: before the call (may one be made now?), the call, after it (what
// the reply means, and what is decided from it), and the wait before the
// next turn. Each step is a call that comes back here: a failed call is
// the policy's to decide (policy.go), a reply's progress the breaker's, its
// completion the exit decision's (exit.go). stop=true ends the run with
// the step's result.
func (l *loop) iteration() step {
	// Before the call: stop, or wait and start the turn over, or go.
	if r, stop := l.interrupted(); stop {
		return stopWith(r)
	}
	if r, stop := l.stateLost(); stop {
		return stopWith(r)
	}
	l.n++
	if s, ready := l.beforeCall(); !ready {
		return s
	}
	c := l.newCall()
	spec, err := l.prepareCall(c)
	if err != nil {
		return stopWith(errorEnd(err))
	}

	l.save(savedCallStart)

	// The call (agent.go, through the agent edge: the output is logged
	// and analysed as it comes).
	c.outcome = l.runAgent(c, spec)
	l.settleStream(c)

	// After the call. A stop, or a failure: counted and reported, then the
	// policy decides (retry after a backoff, ride out an outage, wait for
	// a usage limit, switch to the fallback, or stop).
	switch {
	case c.outcome.Reason == supervise.Canceled:
		l.writeProgressFailed()
		return stopWith(l.signalExit())
	case c.outcome.Reason != supervise.Exited || c.outcome.ExitCode != 0:
		return l.next(l.act(l.failure(c))) // failure.go says it, policy.go decides
	}

	// A reply (exit 0): what it says. A reply that is an error or did
	// nothing is a failure too.
	l.countSuccess()
	res := l.analyseReply(c)
	if d, failed := l.errorReply(c, res); failed {
		return l.next(l.act(d))
	}
	if drivers.NoRequest(res) {
		return l.next(l.act(l.noRequest(c, res)))
	}
	l.recordCall()
	l.retry = 0

	// What it did: the plan, git, the tasks' checks, the quality gates.
	l.measureProgress(c, &res)
	if l.checkTasks(c) {
		return stopWith(l.signalExit()) // stopped while a task's check ran
	}
	gate := l.checkGates(c, &res)
	l.noteQuestion(&res)
	l.tasksAfter(c, gate)
	l.recordAnalysis(c, res)
	exit := l.exitAfter(c, res) // is a completion met? (exit.go: decideExit)

	// What is decided from it: the breaker (idle iterations are not "no
	// progress"), denied tools, the completion, the review, a stall.
	it := l.iterationRecord(c, res, "success")
	it.QualityGateResult = gate.Code
	idle := l.idleEnabled() && res.HasState("idle")
	l.noteStates(res)
	if !idle {
		if s, stop := l.feedBreaker(c, res, gate, exit, it); stop {
			return s
		}
	}
	if res.HasPermissionDenials {
		l.idle.end()
		return l.next(l.permissionDenied(c, res, it))
	}
	l.noteIdle(c, it, idle)
	l.policy.succeeded()
	if r, stop := l.completion(c, exit); stop {
		return stopWith(r)
	}
	l.kept.Findings = nil
	l.save(savedReview)
	l.maybeReview(res)
	if idle {
		l.resetStall()
	} else {
		l.noteStall(res.ResultText)
	}
	return l.next(goOn)
}

// beforeCall runs the checks before a call, in the bash loop's order: the
// trackers' sync, the plan, the session, the hour's window, the breaker,
// the call limit, the completion, the budgets, the usage known, the usage
// governor, a pause, the swarm; then picks the driver and reports the
// call's start. ready=false: s stops the run, or the loop waited (that
// was no iteration) and starts the turn over.
func (l *loop) beforeCall() (s step, ready bool) {
	again := func(r Result, stop bool) (step, bool) {
		if stop {
			return stopWith(r), false
		}
		l.n-- // the wait was not an iteration
		return goOn, false
	}
	l.tasksBefore()
	if r, stop := l.interrupted(); stop {
		l.n-- // stopped during the trackers' sync: no iteration began
		return stopWith(r), false
	}
	l.planForCall()
	l.sessionStep(store.SessionStep{Kind: store.SessionTouch})
	l.rollWindow()
	l.breakerStartup()
	l.bus.Note(events.LoopMark{Loop: l.n})

	if l.kept.Breaker.Err(l.brkCfg) != nil {
		return stopWith(l.breakerHalt("circuit_breaker_open")), false
	}
	if !l.kept.Window.Allow(l.now(), l.s.MaxCallsPerHour) {
		return again(l.rateLimitWait())
	}
	if reason := l.exitReason(); reason != "" {
		if r, stop := l.complete(reason); stop {
			return stopWith(r), false
		}
	}
	if r, stop := l.limitReached(); stop {
		return stopWith(r), false
	}
	if r, stop := l.usageGate(); stop {
		return stopWith(r), false
	}
	if r, stop, waited := l.quotaGate(); stop || waited {
		return again(r, stop)
	}
	if r, stop := l.pauseGate(); stop {
		return stopWith(r), false
	}
	if r, stop, waited := l.swarmGate(); stop || waited {
		return again(r, stop)
	}
	l.pickDriver()
	l.bus.CallStarted(l.at("executing", "running"))
	return goOn, true
}

// next goes from a finished call's step s to the next turn: a stop ends
// the run; a failed call was said as it ended and its back-off waited (no
// "Completed" mark and no second wait: only a pause holds it); any other
// call is marked completed, then the agent's question, the budgets and a
// pause are heard, and the loop waits before the next call (afterIteration:
// a stall or idle stop, the idle backoff or LOOP_DELAY).
func (l *loop) next(s step) step {
	switch {
	case s.stop:
		return s
	case s.failed:
		if r, stop := l.pauseGate(); stop {
			return stopWith(r)
		}
		return goOn
	}
	l.bus.Note(events.LoopMark{Loop: l.n, Done: true})
	if r, stop := l.askGate(); stop {
		return stopWith(r)
	}
	if r, stop := l.limitReached(); stop {
		return stopWith(r)
	}
	if r, stop := l.pauseGate(); stop {
		return stopWith(r)
	}
	if r, stop := l.afterIteration(); stop {
		return stopWith(r)
	}
	return goOn
}

// newCall is the next call's record before it is made: its logs' names,
// the plan and HEAD it starts from, the working tree's mark, and the
// diff summary its context carries.
func (l *loop) newCall() *call {
	c := &call{started: l.now()}
	c.stamp = callStamp(c.started, l.n)
	for i := 2; l.dir.Exists("logs/claude_output_" + c.stamp + ".log"); i++ {
		c.stamp = fmt.Sprintf("%s-%d", callStamp(c.started, l.n), i)
	}
	c.outName = "logs/claude_output_" + c.stamp + ".log"
	l.gate.fresh = false // the agent may change what the gates checked
	c.errName = "logs/claude_stderr_" + c.stamp + ".log"
	c.calls = l.kept.Window.Count + 1
	if counts, ok := l.fixPlanCounts(); ok {
		c.before = counts.Checked
		c.planBefore = l.plan.data
	}
	// The bash loop deletes .loop_diff_summary here, before the context
	// that was meant to carry it is built; this loop hands it on first.
	l.lastSummary, l.kept.DiffSummary = l.kept.DiffSummary, ""
	c.startSHA = l.git.Commit(l.ctx)
	l.kept.LoopStartSHA = c.startSHA
	if l.runStart == "" {
		l.runStart = c.startSHA
	}
	l.markBase()
	c.base = l.tree
	l.tasks.begin(c.startSHA)
	l.claims.now = nil // a hold before the call is the previous claim's
	return c
}

// prepareCall says the call is starting and builds its command: the
// session it resumes, the loop context, the prompt, and the driver's argv
// in the output mode the driver can give (live streaming falls back).
func (l *loop) prepareCall(c *call) (drivers.Spec, error) {
	l.bus.Note(events.CallStarting{Agent: l.display(), Call: c.calls, MaxCalls: l.s.MaxCallsPerHour, Timeout: l.s.Timeout, Retry: l.retry})

	if l.s.SessionContinuity && l.drv.SupportsSessions() && !l.goal() { // --goal: a fresh context each call
		id, err := l.resumeID()
		if err != nil {
			l.warn(err)
		}
		c.sessionID, c.resumed = id, id != ""
	}
	ctxText := l.loopContext(c)
	if ctxText != "" {
		l.bus.Note(events.LoopContext{Text: ctxText})
	}
	if l.liveOK && l.format == "text" {
		l.bus.Note(events.LiveNeedsJSON)
		l.format = "json"
	}

	spec, err := l.buildCommand(c, ctxText)
	if err != nil {
		return spec, err
	}
	if l.drv.Traits().OutputFormat {
		l.bus.Note(events.CLIMode{Format: l.format})
	}
	if l.liveOK && !l.drv.SupportsLive() {
		l.bus.Note(events.NoLiveStreaming{Agent: l.display()})
		l.liveOK = false
		return l.buildCommand(c, ctxText)
	}
	return spec, nil
}

// settleStream drops the stream copy of a call that did not succeed: only
// a successful call's stream is cut down and kept apart.
func (l *loop) settleStream(c *call) {
	if c.stream != nil && (c.outcome.Reason != supervise.Exited || c.outcome.ExitCode != 0) {
		c.stream.Finish()
		l.logs.RemoveLog(c.streamName())
		c.stream = nil
	}
}

// act carries out the policy's decision d on what a call (or the usage
// known before one) met: stop, switch to the other driver, back off, or
// wait for a usage limit.
func (l *loop) act(d decision) step {
	switch d.then {
	case stopRun:
		return stopWith(d.result)
	case switchTo:
		l.pickDriver()
		return goOn
	case retryAfter:
		if r, stop := l.limitReached(); stop {
			return stopWith(r) // no wait after the last allowed call
		}
		if _, err := l.waitOut(d.wait); err != nil {
			return stopWith(l.signalExit())
		}
		return backedOff
	case waitLimit:
		return l.waitForLimit(d.wait)
	}
	return goOn
}

// errorEnd is the run's end when a call cannot be made (err: its prompt
// cannot be read, its command not built).
func errorEnd(err error) Result {
	return Result{Code: ExitError, Action: "unexpected_exit", Status: "stopped", Reason: "error", Err: err,
		Stop: events.Stop{Kind: events.StopError, Err: err}}
}

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

// callStamp names one call's logs: the local start time as the bash loop
// writes it (to the second), then the milliseconds and the loop number, so
// that every call gets its own files and the names still sort by time.
func callStamp(t time.Time, loop int) string {
	t = t.Local()
	return fmt.Sprintf("%s-%03d_loop%d", t.Format("2006-01-02_15-04-05"), t.Nanosecond()/int(time.Millisecond), loop)
}

// buildCommand asks the driver for the argv.
func (l *loop) buildCommand(c *call, ctxText string) (drivers.Spec, error) {
	prompt, err := l.readPromptFile()
	if err != nil {
		return drivers.Spec{}, err
	}
	return l.drv.Build(l.request(string(prompt), ctxText, c.sessionID))
}

// request is the driver request for one call.
func (l *loop) request(prompt, ctxText, sessionID string) drivers.Request {
	return drivers.Request{
		Prompt:         prompt,
		Context:        ctxText,
		SessionID:      sessionID,
		Live:           l.liveOK,
		OutputFormat:   l.format,
		AllowedTools:   l.s.AllowedTools,
		PermissionMode: l.s.PermissionMode,
		Dir:            l.s.ProjectDir,
		Env:            l.deps.Env,
		LookPath:       l.deps.LookPath,
		PromptMode:     l.s.PromptMode,
		Command:        l.s.AgentArgv,
		CLIVersion:     l.cliVersion,
	}
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
		TasksTicked:           c.ticked,
		Verified:              c.verdicts,
	}
	return it
}

// callOptions bounds one agent call: the timeout, the inactivity limit and
// the effective write heartbeat (at most the timeout minus 2 minutes).
func (l *loop) callOptions(stdout, stderr io.Writer) supervise.Options {
	write := l.s.WriteTimeout
	if write > 0 && l.s.Timeout > 0 && write >= l.s.Timeout {
		write = l.s.Timeout - 2*time.Minute
		if write < time.Minute {
			write = 0
		}
	}
	return supervise.Options{
		Timeout:      l.s.Timeout,
		Inactivity:   l.s.Inactivity,
		WriteTimeout: write,
		WatchDir:     l.s.ProjectDir,
		Grace:        l.s.Grace,
		MaxOutput:    l.s.MaxOutput,
		Stdout:       stdout,
		Stderr:       stderr,
	}
}
