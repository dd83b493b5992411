package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
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
	prompt, err := ralphdir.ReadFileCapped(l.promptPath(), ralphdir.TextCap)
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

// runAgent starts the agent under supervision, streaming stdout to the
// output log (and, live, to the console and live.log), stderr to its log.
// Each log keeps at most MAX_OUTPUT_MB (head and tail). A log that cannot
// be written fails the call (supervise.WriteFailed): its output is lost,
// so it must never count as a success.
func (l *loop) runAgent(c *call, spec drivers.Spec) supervise.Outcome {
	out, err := l.dir.Create(c.outName)
	if err != nil {
		return writeFailed(err)
	}
	defer out.Close()
	errf, err := l.dir.Create(c.errName)
	if err != nil {
		return writeFailed(err)
	}
	defer errf.Close()

	header := fmt.Sprintf("\n\n=== Loop #%d - %s ===\n", l.n, c.started.Local().Format(events.LocalStamp))
	if err := l.dir.WriteFile(ralphdir.LiveLog, []byte(header)); err != nil {
		return writeFailed(err)
	}
	live, err := l.dir.OpenAppend(ralphdir.LiveLog)
	if err != nil {
		return writeFailed(err)
	}
	defer live.Close()

	limit := l.s.MaxOutput
	outLog := &checked{w: supervise.NewHeadTail(out, limit)}
	errLog := &checked{w: supervise.NewHeadTail(errf, limit)}
	liveLog := &checked{w: supervise.NewHeadTail(live, limit)}
	tail := &lastLine{}
	var renderer *drivers.LiveRenderer
	stdout := &fanout{ws: []io.Writer{outLog, tail, liveLog}, watch: []*checked{outLog, liveLog}}
	if l.liveOK {
		l.bus.Infof("📺 Live output mode enabled - showing %s streaming...", l.display())
		fmt.Fprintf(l.deps.Stdout, "%s━━━━━━━━━━━━━━━━ %s Output ━━━━━━━━━━━━━━━━%s\n", l.colour(purple), l.display(), l.colour(reset))
		// The renderer drops write errors: the fan-out checks live.log.
		renderer = drivers.NewLiveRenderer(spec.Format, io.MultiWriter(l.deps.Stdout, liveLog))
		stdout.ws = []io.Writer{outLog, tail, renderer}
	}

	// The first executing record is written before the agent starts, not
	// beside it: an agent's `git add -A` must never meet the atomic
	// write's temp file, which vanishes under it and fails the add.
	l.progressTick(tail, 0)
	done := make(chan struct{})
	tickerDone := make(chan struct{})
	go func() {
		defer close(tickerDone)
		l.progressTicker(c, tail, done)
	}()
	opts := l.callOptions(stdout, errLog)
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
	// The tails are written now; a log that fails here, or on close
	// (some filesystems report a full disk only then), fails the call too.
	werr := errors.Join(closeLog(outLog, out), closeLog(errLog, errf), closeLog(liveLog, live))
	switch {
	case werr == nil || o.Reason == supervise.WriteFailed:
	case o.Reason == supervise.Exited:
		o.Reason, o.Err = supervise.WriteFailed, writeFailed(werr).Err
	default: // the call failed anyway; say that its log is incomplete
		l.bus.Errorf("%s", writeFailedLine(werr))
	}
	return o
}

// writeFailed is the outcome of a call whose output could not be stored.
func writeFailed(err error) supervise.Outcome {
	return supervise.Outcome{ExitCode: -1, Reason: supervise.WriteFailed, Err: fmt.Errorf("%w: %w", supervise.ErrOutputWrite, err)}
}

// closeLog writes a log's kept tail and closes its file.
func closeLog(c *checked, f *os.File) error {
	if ht, ok := c.w.(*supervise.HeadTail); ok {
		if err := ht.Close(); err != nil {
			return c.fail(err)
		}
	}
	if err := f.Close(); err != nil && !errors.Is(err, os.ErrClosed) {
		return c.fail(err)
	}
	return c.error()
}

// checked remembers a writer's first error and fails every write after it.
type checked struct {
	mu  sync.Mutex
	w   io.Writer
	err error
}

func (c *checked) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.w.Write(p)
	if err != nil {
		c.err = err
	}
	return n, err
}

func (c *checked) fail(err error) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err == nil {
		c.err = err
	}
	return c.err
}

func (c *checked) error() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// fanout writes to every writer, even after one failed (the console must
// go on showing the stream when a log cannot be written), and reports the
// first error of a writer or of a watched log written through another one.
type fanout struct {
	ws    []io.Writer
	watch []*checked
}

func (f *fanout) Write(p []byte) (int, error) {
	var first error
	for _, w := range f.ws {
		if _, err := w.Write(p); err != nil && first == nil {
			first = err
		}
	}
	for _, c := range f.watch {
		if err := c.error(); err != nil && first == nil {
			first = err
		}
	}
	return len(p), first
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
		MaxOutput:    l.s.MaxOutput,
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
// the agent runs, after the record written when the call starts (as the
// bash loop does: its first write comes at its first poll, right after the
// start), so bmalph's dashboard shows the running call at once.
func (l *loop) progressTicker(c *call, tail *lastLine, done <-chan struct{}) {
	t := time.NewTicker(10 * time.Second)
	defer t.Stop()
	for tick := 1; ; tick++ {
		select {
		case <-done:
			return
		case <-t.C:
		}
		l.progressTick(tail, tick)
	}
}

// progressTick writes one executing record, tick*10 s into the call.
func (l *loop) progressTick(tail *lastLine, tick int) {
	line := tail.String()
	l.emit(events.Event{Type: events.IterationProgress, Message: line, DelaySecs: float64(tick * 10)})
	if tick == 0 {
		return
	}
	if line != "" {
		l.bus.Debugf("%s: %s... (%ds)", l.display(), clip.Bytes(line, 80), tick*10)
	} else {
		l.bus.Debugf("%s working... (%ds elapsed)", l.display(), tick*10)
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
