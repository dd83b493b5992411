// Package agentcall is the loop's edge to the agent: one call of the
// agent CLI (Run) with everything that touches its output on the way
// (the output and stderr logs, live.log, the copy of a live stream, the
// last line for the progress record, the bytes the analysis reads), the
// start-up's look at the CLI's install for its version (Installed), and
// --doctor's `<cli> --version` (Version). The engine builds a
// Request, and decides from the Reply; it opens no log and starts no
// process itself.
package agentcall

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/ralphloop/ralph_loop/analysis"
	"github.com/ralphloop/ralph_loop/drivers"
	"github.com/ralphloop/ralph_loop/internal/ralphdir"
	"github.com/ralphloop/ralph_loop/internal/safetext"
	"github.com/ralphloop/ralph_loop/internal/supervise"
)

// Logs opens the call's logs under .ralph/ (the state store in
// production).
type Logs interface {
	CreateLog(name string) (*os.File, error)
	OpenLiveLog(header string) (io.WriteCloser, error)
}

// Agent is the agent CLI as the loop's engine calls it: each call (Run)
// and the review call (Review) start the driver's command through Start,
// the call's logs opened through Logs; Installed is what its install says
// of its version, starting nothing.
type Agent struct {
	// Start starts one command and waits for it (supervise.Run in
	// production, with the sandbox's wrapping).
	Start func(ctx context.Context, c supervise.Command, o supervise.Options) supervise.Outcome
	Logs  Logs
}

// Request is one agent call.
type Request struct {
	// Spec is the driver's command for the call.
	Spec drivers.Spec
	// Options bound the call; Stdout and Stderr are the edge's own.
	Options supervise.Options
	// OutLog and ErrLog name the output and stderr logs; LiveHeader
	// starts the call's part of live.log.
	OutLog, ErrLog, LiveHeader string
	// StreamLog, when set, keeps the whole stream (Reply.Stream) while
	// the output log is cut down to its result record after the call.
	StreamLog string
	// Analysis starts the analysis that reads exactly the bytes the
	// output log takes; it is called once that log is open.
	Analysis func() *analysis.Stream
	// Live renders the stream (of Format) to live.log and to LiveOut as
	// it comes; otherwise live.log gets the raw stream made safe.
	Live    bool
	Format  string
	LiveOut io.Writer
	// Started is called once the logs are open, just before the agent
	// starts, with the output's last line so far. It returns one more
	// reader of the agent's stdout (a ticking line; nil for none), and
	// the function Run calls when the agent has ended, before the logs
	// are closed.
	Started func(last func() string) (watch io.Writer, ended func())
}

// Reply is what came of a call.
type Reply struct {
	Outcome supervise.Outcome
	// Analysis fed by the output log; nil when that log could not be
	// opened.
	Analysis *analysis.Stream
	// Stream is the whole stream's copy (Request.StreamLog), nil for
	// none: Finish writes its log's tail and closes it, then Result is its
	// last "type":"result" record (found), unless the stream was too big
	// to look for one (over).
	Stream interface {
		Finish() error
		Result() (last []byte, found, over bool)
	}
	// NotStored: a log could not be written in full on a call that failed
	// anyway (a successful call with a broken log fails: WriteFailed).
	NotStored error
}

// Run makes one call: the logs are opened, the agent runs under
// supervision with its stdout going to the output log and the analysis
// beside it (and live.log, the stream copy, the last line and Watch), its
// stderr to its log. Each log keeps at most Options.MaxOutput bytes (head
// and tail). A log that cannot be written fails the call
// (supervise.WriteFailed): its output is lost, so it must never count as
// a success. The analysis is closed when Run returns.
func (a Agent) Run(ctx context.Context, req Request) Reply {
	var r Reply
	out, err := a.Logs.CreateLog(req.OutLog)
	if err != nil {
		r.Outcome = writeFailed(err)
		return r
	}
	defer out.Close()
	r.Analysis = req.Analysis()
	defer r.Analysis.Close() // the output has ended, with its log's tail
	errf, err := a.Logs.CreateLog(req.ErrLog)
	if err != nil {
		r.Outcome = writeFailed(err)
		return r
	}
	defer errf.Close()
	live, err := a.Logs.OpenLiveLog(req.LiveHeader)
	if err != nil {
		r.Outcome = writeFailed(err)
		return r
	}
	defer live.Close()

	limit := req.Options.MaxOutput
	outLog := &checked{w: supervise.NewHeadTail(fed{log: out, s: r.Analysis}, limit)}
	errLog := &checked{w: supervise.NewHeadTail(errf, limit)}
	liveLog := &checked{w: supervise.NewHeadTail(live, limit)}
	tail := &lastLine{}
	var renderer *drivers.LiveRenderer
	// live.log is shown on terminals (tail -f, a monitor pane): the raw
	// stream goes there made safe, as the live renderer's rendering does.
	safeLive := safetext.NewWriter(liveLog)
	stdout := &fanout{ws: []io.Writer{outLog, tail, safeLive}, watch: []*checked{outLog, liveLog}}
	if req.Live {
		// The renderer drops write errors: the fan-out checks live.log.
		renderer = drivers.NewLiveRenderer(req.Format, io.MultiWriter(req.LiveOut, liveLog))
		stdout.ws = []io.Writer{outLog, tail, renderer}
	}
	if req.StreamLog != "" {
		// The stream is kept whole in its own log and its last result
		// record remembered, in the same pass, so that the output log can
		// be cut down to that record without reading it back.
		s := &stream{result: &resultLine{limit: ralphdir.LogCap}}
		if f, err := a.Logs.CreateLog(req.StreamLog); err != nil {
			s.err = err
		} else {
			defer f.Close()
			s.w = supervise.NewHeadTail(f, limit)
			s.f = f
		}
		r.Stream = s
		stdout.ws = append(stdout.ws, s)
	}
	watch, ended := req.Started(tail.String)
	if watch != nil {
		stdout.ws = append(stdout.ws, watch)
	}
	opts := req.Options
	opts.Stdout, opts.Stderr = stdout, errLog
	o := a.Start(ctx, command(req.Spec), opts)
	ended()
	if renderer != nil {
		renderer.Close()
	} else {
		safeLive.Flush()
	}
	// The tails are written now; a log that fails here, or on close
	// (some filesystems report a full disk only then), fails the call too.
	werr := errors.Join(closeLog(outLog, out), closeLog(errLog, errf), closeLog(liveLog, live))
	switch {
	case werr == nil || o.Reason == supervise.WriteFailed:
	case o.Reason == supervise.Exited:
		o.Reason, o.Err = supervise.WriteFailed, writeFailed(werr).Err
	default: // the call failed anyway; say that its log is incomplete
		r.NotStored = werr
	}
	r.Outcome = o
	return r
}

// Review makes the periodic review's call, a read-only one, its stdout
// and stderr where o says: no log of the call's own, no live view.
func (a Agent) Review(ctx context.Context, spec drivers.Spec, o supervise.Options) supervise.Outcome {
	return a.Start(ctx, command(spec), o)
}

// Installed is what the install of drv's CLI, found at path, says of its
// version (Installed), starting nothing.
func (a Agent) Installed(drv drivers.Driver, path string) drivers.Installed {
	return Installed(drv, path)
}

// command is the driver's command as supervise runs it.
func command(spec drivers.Spec) supervise.Command {
	return supervise.Command{Argv: spec.Argv, Env: spec.Env, Dir: spec.Dir, Stdin: spec.Stdin}
}

// writeFailed is the outcome of a call whose output could not be stored.
func writeFailed(err error) supervise.Outcome {
	return supervise.Outcome{ExitCode: -1, Reason: supervise.WriteFailed, Err: fmt.Errorf("%w: %w", supervise.ErrOutputWrite, err)}
}

// closeLog writes a log's kept tail and closes its file.
func closeLog(c *checked, f io.Closer) error {
	if ht, ok := c.w.(io.Closer); ok { // a supervise.NewHeadTail
		if err := ht.Close(); err != nil {
			return c.fail(err)
		}
	}
	if err := f.Close(); err != nil && !errors.Is(err, os.ErrClosed) {
		return c.fail(err)
	}
	return c.error()
}

// fed writes the output log and feeds the analysis exactly the bytes the
// file took, in the order written: the head, the omission line and the
// tail when the output is capped, as a reading of the log would see
// them. The log is never read back.
type fed struct {
	log io.Writer
	s   *analysis.Stream
}

func (a fed) Write(p []byte) (int, error) {
	n, err := a.log.Write(p)
	a.s.Write(p[:n])
	return n, err
}

// Version runs `<path> --version` (10 s at most): --doctor's probe of the
// agent CLI, the one start of it that is not a call.
func Version(ctx context.Context, path string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, "--version")
	cmd.Stdin = nil
	out, err := cmd.Output()
	return strings.TrimSpace(string(out)), err
}
