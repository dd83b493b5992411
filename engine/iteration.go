package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/ralphloop/ralph_loop/analysis"
	"github.com/ralphloop/ralph_loop/breaker"
	"github.com/ralphloop/ralph_loop/drivers"
	"github.com/ralphloop/ralph_loop/events"
	"github.com/ralphloop/ralph_loop/internal/clip"
	"github.com/ralphloop/ralph_loop/ralphdir"
	"github.com/ralphloop/ralph_loop/review"
	"github.com/ralphloop/ralph_loop/supervise"
)

// call is one agent call in flight and what came of it.
type call struct {
	stamp      string // <local time to the second>-<ms>_loop<N>, unique per call
	outName    string // logs/claude_output_<stamp>.log
	errName    string
	startSHA   string
	before     int // checked boxes before the call
	sessionID  string
	resumed    bool
	calls      int // .call_count after this call, if it succeeds
	outcome    supervise.Outcome
	started    time.Time
	res        *analysis.Result
	exitSignal bool // before quality-gate override (metrics)
	files      int  // files changed in git by the call, loop-owned files left out
}

// iteration runs one agent call and everything after it; stop=true ends
// the run with r.
func (l *loop) iteration() (r Result, stop bool) {
	c := &call{started: l.now()}
	c.stamp = callStamp(c.started, l.n)
	for i := 2; l.dir.Exists("logs/claude_output_" + c.stamp + ".log"); i++ {
		c.stamp = fmt.Sprintf("%s-%d", callStamp(c.started, l.n), i)
	}
	c.outName = "logs/claude_output_" + c.stamp + ".log"
	c.errName = "logs/claude_stderr_" + c.stamp + ".log"
	c.calls = l.window.Count + 1
	if counts, ok := l.fixPlanCounts(); ok {
		c.before = counts.Checked
	}
	// The reference deletes .loop_diff_summary here, before the context
	// that was meant to carry it is built; we read it first.
	if data, found, _ := l.dir.ReadFile(ralphdir.LoopDiffSummary); found {
		l.lastSummary = strings.TrimSpace(string(data))
	} else {
		l.lastSummary = ""
	}
	l.dir.Remove(ralphdir.LoopDiffSummary)
	c.startSHA = l.git.head(l.ctx)
	l.dir.WriteFile(ralphdir.LoopStartSHA, []byte(c.startSHA+"\n"))

	l.bus.Loopf("Executing %s (Call %d/%d)", l.display(), c.calls, l.s.MaxCallsPerHour)
	l.bus.Infof("⏳ Starting %s execution... (timeout: %dm)", l.display(), int(l.s.Timeout.Minutes()))

	if l.s.SessionContinuity && l.drv.SupportsSessions() {
		id, err := l.sessions.ResumeID(l.now(), l.s.SessionExpiry)
		if err != nil {
			l.bus.Warnf("%v", err)
		}
		c.sessionID, c.resumed = id, id != ""
	}
	ctxText := l.loopContext(c)
	if ctxText != "" {
		l.bus.Debugf("Loop context: %s", ctxText)
	}
	if l.liveOK && l.format == "text" {
		l.bus.Warnf("Live mode requires JSON output format. Overriding text → json for this session.")
		l.format = "json"
	}

	spec, err := l.buildCommand(c, ctxText)
	if err != nil {
		return Result{Code: ExitError, Action: "unexpected_exit", Status: "stopped", Reason: "error", Err: err, Message: err.Error()}, true
	}
	if l.s.Driver == "claude-code" {
		l.bus.Infof("Using modern CLI mode (%s output)", l.format)
	}
	if l.liveOK && !l.drv.SupportsLive() {
		l.bus.Warnf("%s does not support structured live streaming. Falling back to background mode.", l.display())
		l.liveOK = false
		if spec, err = l.buildCommand(c, ctxText); err != nil {
			return Result{Code: ExitError, Action: "unexpected_exit", Status: "stopped", Reason: "error", Err: err, Message: err.Error()}, true
		}
	}
	c.outcome = l.runAgent(c, spec)

	if c.outcome.Reason == supervise.Canceled {
		l.writeProgressFailed()
		return l.signalExit(), true
	}
	if c.outcome.Reason == supervise.Exited && c.outcome.ExitCode == 0 {
		return l.success(c)
	}
	return l.failure(c)
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
	prompt, err := os.ReadFile(l.promptPath())
	if err != nil {
		return drivers.Spec{}, fmt.Errorf("read prompt %s: %w", l.promptPath(), err)
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

// runAgent starts the agent under supervision, streaming stdout to the
// output log (and, live, to the console and live.log), stderr to its log.
func (l *loop) runAgent(c *call, spec drivers.Spec) supervise.Outcome {
	out, err := os.Create(l.dir.Path(c.outName))
	if err != nil {
		return supervise.Outcome{ExitCode: 1, Reason: supervise.StartFailed, Err: fmt.Errorf("create %s: %w", l.dir.Path(c.outName), err)}
	}
	defer out.Close()
	errf, err := os.Create(l.dir.Path(c.errName))
	if err != nil {
		return supervise.Outcome{ExitCode: 1, Reason: supervise.StartFailed, Err: fmt.Errorf("create %s: %w", l.dir.Path(c.errName), err)}
	}
	defer errf.Close()

	header := fmt.Sprintf("\n\n=== Loop #%d - %s ===\n", l.n, c.started.Local().Format(events.LocalStamp))
	l.dir.WriteFile(ralphdir.LiveLog, []byte(header))
	live, _ := os.OpenFile(l.dir.Path(ralphdir.LiveLog), os.O_WRONLY|os.O_APPEND, 0o644)
	if live != nil {
		defer live.Close()
	}
	tail := &lastLine{}
	var renderer *drivers.LiveRenderer
	var stdout io.Writer = io.MultiWriter(out, tail)
	if l.liveOK {
		l.bus.Infof("📺 Live output mode enabled - showing %s streaming...", l.display())
		fmt.Fprintf(l.deps.Stdout, "%s━━━━━━━━━━━━━━━━ %s Output ━━━━━━━━━━━━━━━━%s\n", l.colour(purple), l.display(), l.colour(reset))
		var sinks []io.Writer
		sinks = append(sinks, l.deps.Stdout)
		if live != nil {
			sinks = append(sinks, live)
		}
		renderer = drivers.NewLiveRenderer(spec.Format, io.MultiWriter(sinks...))
		stdout = io.MultiWriter(out, tail, renderer)
	} else if live != nil {
		stdout = io.MultiWriter(out, tail, live)
	}

	done := make(chan struct{})
	tickerDone := make(chan struct{})
	go func() {
		defer close(tickerDone)
		l.progressTicker(c, tail, done)
	}()
	opts := l.callOptions(stdout, errf)
	if w := l.s.WriteTimeout; w > 0 && l.s.Timeout > 0 && w >= l.s.Timeout {
		l.bus.Warnf("WRITE_TIMEOUT_MINUTES (%d) >= CLAUDE_TIMEOUT_MINUTES (%d), using %d", int(w.Minutes()), int(l.s.Timeout.Minutes()), int(opts.WriteTimeout.Minutes()))
	}
	if l.liveOK {
		opts.WriteTimeout = 0 // as the reference: no heartbeat in live mode
	}
	o := l.deps.Run(l.ctx, toCommand(spec), opts)
	close(done)
	<-tickerDone // no progress.json "executing" after the call has ended
	if renderer != nil {
		renderer.Close()
	}
	if l.liveOK {
		fmt.Fprintf(l.deps.Stdout, "\n%s━━━━━━━━━━━━━━━━ End of Output ━━━━━━━━━━━━━━━━━━━%s\n", l.colour(purple), l.colour(reset))
	}
	return o
}

func toCommand(spec drivers.Spec) supervise.Command {
	return supervise.Command{Argv: spec.Argv, Env: spec.Env, Dir: spec.Dir, Stdin: spec.Stdin}
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
		Stdout:       stdout,
		Stderr:       stderr,
	}
}

// reviewRequest is the review call: read-only tools, no session, the
// review context as the system-prompt addition.
func (l *loop) reviewRequest(p review.Prompt) drivers.Request {
	req := l.request(p.Prompt, p.SystemContext, "")
	req.Live = false
	if l.drv.SupportsAllowedTools() {
		req.AllowedTools = review.ReadOnlyTools
	}
	return req
}

// progressTicker writes progress.json's executing form every 10 s while
// the agent runs (the first at once is skipped, as the reference's first
// write comes after its first poll).
func (l *loop) progressTicker(c *call, tail *lastLine, done <-chan struct{}) {
	t := time.NewTicker(10 * time.Second)
	defer t.Stop()
	for tick := 1; ; tick++ {
		select {
		case <-done:
			return
		case <-t.C:
			line := tail.String()
			l.emit(events.Event{Type: events.IterationProgress, Message: line, DelaySecs: float64(tick * 10)})
			if line != "" {
				l.bus.Debugf("%s: %s... (%ds)", l.display(), clip.Bytes(line, 80), tick*10)
			} else {
				l.bus.Debugf("%s working... (%ds elapsed)", l.display(), tick*10)
			}
		}
	}
}

func (l *loop) writeProgressFailed() {
	l.emit(events.Event{Type: events.IterationFailed, Iteration: &events.Iteration{Outcome: "interrupted", Driver: l.s.Driver}})
}

// lastLine remembers the last non-empty output line (at most 4 KiB of it).
type lastLine struct {
	mu   sync.Mutex
	cur  []byte
	last []byte
}

func (t *lastLine) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, b := range p {
		if b == '\n' {
			if len(bytes.TrimSpace(t.cur)) > 0 {
				t.last = append(t.last[:0], t.cur...)
			}
			t.cur = t.cur[:0]
			continue
		}
		if len(t.cur) < 4096 {
			t.cur = append(t.cur, b)
		}
	}
	return len(p), nil
}

func (t *lastLine) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(bytes.TrimSpace(t.cur)) > 0 {
		return string(t.cur)
	}
	return string(t.last)
}

var _ = context.Background
var _ = breaker.Config{}

// collapseStream keeps the raw stream in …_stream.log and replaces the
// output log with the final result record, as the reference does after a
// live call (the analysis reads either form).
func (l *loop) collapseStream(c *call) {
	data, found, err := l.dir.ReadFile(c.outName)
	if err != nil || !found {
		return
	}
	stream := strings.TrimSuffix(c.outName, ".log") + "_stream.log"
	if err := l.dir.WriteFile(stream, data); err != nil {
		l.bus.Warnf("%v", err)
		return
	}
	var last []byte
	for _, line := range bytes.Split(data, []byte("\n")) {
		if bytes.Contains(line, []byte(`"type":"result"`)) || bytes.Contains(line, []byte(`"type": "result"`)) {
			last = line
		}
	}
	if last == nil {
		l.bus.Infof("Keeping full stream output for shared response analysis")
		return
	}
	if !json.Valid(last) {
		l.bus.Warnf("Final result record was invalid JSON, keeping full stream output")
		return
	}
	if err := l.dir.WriteFile(c.outName, append(last, '\n')); err == nil {
		l.bus.Infof("Collapsed streamed response to the final result record")
	}
}
