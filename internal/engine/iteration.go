package engine

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/ralphloop/ralph_loop/analysis"
	"github.com/ralphloop/ralph_loop/drivers"
	"github.com/ralphloop/ralph_loop/internal/events"
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

// iteration runs one agent call and everything after it; stop=true ends
// the run with r.
func (l *loop) iteration() step {
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
		return stopWith(errorEnd(err))
	}
	if l.drv.Traits().OutputFormat {
		l.bus.Note(events.CLIMode{Format: l.format})
	}
	if l.liveOK && !l.drv.SupportsLive() {
		l.bus.Note(events.NoLiveStreaming{Agent: l.display()})
		l.liveOK = false
		if spec, err = l.buildCommand(c, ctxText); err != nil {
			return stopWith(errorEnd(err))
		}
	}
	l.save(savedCallStart)
	c.outcome = l.runAgent(c, spec)

	if c.stream != nil && (c.outcome.Reason != supervise.Exited || c.outcome.ExitCode != 0) {
		// Only a successful call's stream is cut down and kept apart.
		c.stream.Finish()
		l.logs.RemoveLog(c.streamName())
		c.stream = nil
	}
	if c.outcome.Reason == supervise.Canceled {
		l.writeProgressFailed()
		return stopWith(l.signalExit())
	}
	if c.outcome.Reason == supervise.Exited && c.outcome.ExitCode == 0 {
		return l.success(c)
	}
	return l.failure(c)
}

// errorEnd is the run's end when a call cannot be made (err: its prompt
// cannot be read, its command not built).
func errorEnd(err error) Result {
	return Result{Code: ExitError, Action: "unexpected_exit", Status: "stopped", Reason: "error", Err: err,
		Stop: events.Stop{Kind: events.StopError, Err: err}}
}

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
