package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/ralphloop/ralph_loop/drivers"
	"github.com/ralphloop/ralph_loop/events"
	"github.com/ralphloop/ralph_loop/ralphdir"
	"github.com/ralphloop/ralph_loop/supervise"
)

// runAgent starts the agent under supervision, streaming stdout to the
// output log (and, live, to the console and live.log), stderr to its log.
// Each log keeps at most MAX_OUTPUT_MB (head and tail). A log that cannot
// be written fails the call (supervise.WriteFailed): its output is lost,
// so it must never count as a success.
func (l *loop) runAgent(c *call, spec drivers.Spec) supervise.Outcome {
	out, err := l.logs.CreateLog(c.outName)
	if err != nil {
		return writeFailed(err)
	}
	defer out.Close()
	errf, err := l.logs.CreateLog(c.errName)
	if err != nil {
		return writeFailed(err)
	}
	defer errf.Close()

	header := fmt.Sprintf("\n\n=== Loop #%d - %s ===\n", l.n, c.started.Local().Format(events.LocalStamp))
	live, err := l.logs.OpenLiveLog(header)
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
	if l.collapsing() {
		// The stream is kept whole in _stream.log and its last result
		// record remembered, in the same pass, so that the output log can
		// be cut down to that record without reading it back.
		c.stream = &streamCopy{result: &resultLine{limit: ralphdir.LogCap}}
		if f, err := l.logs.CreateLog(c.streamName()); err != nil {
			c.stream.err = err
		} else {
			defer f.Close()
			c.stream.w = supervise.NewHeadTail(f, limit)
			c.stream.f = f
		}
		stdout.ws = append(stdout.ws, c.stream)
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
		opts.WriteTimeout = 0 // no write heartbeat in live mode, as the bash loop does
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

// collapsing: with session continuity, a live Claude Code or Cursor call
// keeps its whole stream in …_stream.log and only the final result record
// in the output log, as the bash loop does (their streams end in a
// "type":"result" record; the analysis reads either form).
func (l *loop) collapsing() bool {
	return l.liveOK && l.s.SessionContinuity && (l.s.Driver == "claude-code" || l.s.Driver == "cursor")
}

// collapseStream cuts the output log of a successful call down to the
// final result record the stream copy found.
func (l *loop) collapseStream(c *call) {
	s := c.stream
	if s == nil {
		return
	}
	if err := s.finish(); err != nil || s.result.over {
		// No stream copy when it could not be written (said once) or
		// the output is too big to cut down (said by nothing, as before).
		l.logs.RemoveLog(c.streamName())
		if err != nil {
			l.bus.Warnf("%v", err)
		}
		return
	}
	last := s.result.last
	if !s.result.found {
		l.bus.Infof("Keeping full stream output for shared response analysis")
		return
	}
	if !json.Valid(last) {
		l.bus.Warnf("Final result record was invalid JSON, keeping full stream output")
		return
	}
	if err := l.logs.ReplaceLog(c.outName, append(last, '\n')); err == nil {
		l.bus.Infof("Collapsed streamed response to the final result record")
	}
}
