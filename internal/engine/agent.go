package engine

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/ralphloop/ralph_loop/analysis"
	"github.com/ralphloop/ralph_loop/drivers"
	"github.com/ralphloop/ralph_loop/internal/events"
	"github.com/ralphloop/ralph_loop/internal/observe"
	"github.com/ralphloop/ralph_loop/internal/ralphdir"
	"github.com/ralphloop/ralph_loop/internal/safetext"
	"github.com/ralphloop/ralph_loop/internal/supervise"
)

// runAgent starts the agent under supervision, streaming stdout to the
// output log and the analysis beside it (and, live, to the console and
// live.log), stderr to its log.
// Each log keeps at most MAX_OUTPUT_MB (head and tail). A log that cannot
// be written fails the call (supervise.WriteFailed): its output is lost,
// so it must never count as a success.
func (l *loop) runAgent(c *call, spec drivers.Spec) supervise.Outcome {
	out, err := l.logs.CreateLog(c.outName)
	if err != nil {
		return writeFailed(err)
	}
	defer out.Close()
	c.reading = analysis.NewStream(l.analysisOptions(c))
	defer c.reading.Close() // the output has ended, with its log's tail
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
	outLog := &checked{w: supervise.NewHeadTail(analysedLog{log: out, s: c.reading}, limit)}
	errLog := &checked{w: supervise.NewHeadTail(errf, limit)}
	liveLog := &checked{w: supervise.NewHeadTail(live, limit)}
	tail := &lastLine{}
	var renderer *drivers.LiveRenderer
	// live.log is shown on terminals (tail -f, a monitor pane): the raw
	// stream goes there made safe, as the live renderer's rendering does.
	safeLive := safetext.NewWriter(liveLog)
	stdout := &fanout{ws: []io.Writer{outLog, tail, safeLive}, watch: []*checked{outLog, liveLog}}
	if l.liveOK {
		l.bus.Note(events.LiveStarted{Agent: l.display()})
		// The renderer drops write errors: the fan-out checks live.log.
		renderer = drivers.NewLiveRenderer(spec.Format, io.MultiWriter(liveNotes{l.bus}, liveLog))
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

	if l.deps.Ticks && !l.liveOK {
		ticks := l.startTicks(spec.Format)
		defer ticks.stop()
		stdout.ws = append(stdout.ws, ticks)
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
		l.bus.Note(events.WriteTimeoutClamped{Write: w, Timeout: l.s.Timeout, Used: opts.WriteTimeout})
	}
	if l.liveOK {
		opts.WriteTimeout = 0 // no write heartbeat in live mode, as the bash loop does
	}
	o := l.deps.Run(l.ctx, toCommand(spec), opts)
	close(done)
	<-tickerDone // no progress.json "executing" after the call has ended
	if renderer != nil {
		renderer.Close()
	} else {
		safeLive.Flush()
	}
	if l.liveOK {
		l.bus.Note(events.LiveEnded)
	}
	// The tails are written now; a log that fails here, or on close
	// (some filesystems report a full disk only then), fails the call too.
	werr := errors.Join(closeLog(outLog, out), closeLog(errLog, errf), closeLog(liveLog, live))
	switch {
	case werr == nil || o.Reason == supervise.WriteFailed:
	case o.Reason == supervise.Exited:
		o.Reason, o.Err = supervise.WriteFailed, writeFailed(werr).Err
	default: // the call failed anyway; say that its log is incomplete
		l.bus.Note(notStored(werr))
	}
	return o
}

// writeFailed is the outcome of a call whose output could not be stored.
func writeFailed(err error) supervise.Outcome {
	return supervise.Outcome{ExitCode: -1, Reason: supervise.WriteFailed, Err: fmt.Errorf("%w: %w", supervise.ErrOutputWrite, err)}
}

// closeLog writes a log's kept tail and closes its file.
func closeLog(c *checked, f io.Closer) error {
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
			l.bus.Note(events.Warning{Err: err})
		}
		return
	}
	last := s.result.last
	if !s.result.found {
		l.bus.Note(events.StreamKept)
		return
	}
	if !json.Valid(last) {
		l.bus.Note(events.StreamResultInvalid)
		return
	}
	cut := append(last, '\n')
	if err := l.logs.ReplaceLog(c.outName, cut); err == nil {
		c.collapsed = cut
		l.bus.Note(events.StreamCollapsed)
	}
}

// liveNotes passes the agent's live output, as its driver renders it, on
// to the console as notices.
type liveNotes struct{ bus *observe.Fan }

func (w liveNotes) Write(p []byte) (int, error) {
	w.bus.Note(events.LiveOutput{Data: bytes.Clone(p)})
	return len(p), nil
}
