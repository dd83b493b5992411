package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/ralphloop/ralph_loop/analysis"
	"github.com/ralphloop/ralph_loop/drivers"
	"github.com/ralphloop/ralph_loop/internal/agentcall"
	"github.com/ralphloop/ralph_loop/internal/events"
	"github.com/ralphloop/ralph_loop/internal/observe"
	"github.com/ralphloop/ralph_loop/internal/supervise"
)

// Agent is the agent CLI as the engine calls it (agentcall.Agent in
// production, which starts each command through supervise): the engine
// builds a Request and decides from the Reply; it starts no process and
// opens no call log itself.
type Agent interface {
	// Run makes one call: the driver's command under the call's bounds,
	// its output to the logs and the analysis as it comes.
	Run(ctx context.Context, req agentcall.Request) agentcall.Reply
	// Review makes the periodic review's read-only call, its stdout and
	// stderr where o says.
	Review(ctx context.Context, spec drivers.Spec, o supervise.Options) supervise.Outcome
	// Installed is what the CLI's install at path says of its version,
	// starting nothing.
	Installed(drv drivers.Driver, path string) drivers.Installed
}

// runAgent makes the call through the agent edge (Deps.Agent), which
// opens the logs and tees the output: the output log and the analysis
// beside it (and, live, the console and live.log), stderr to its log.
// Around it the engine notes what the console shows and keeps
// progress.json's executing record ticking.
func (l *loop) runAgent(c *call, spec drivers.Spec) supervise.Outcome {
	opts := l.callOptions(nil, nil)
	used := opts.WriteTimeout
	if l.liveOK {
		opts.WriteTimeout = 0 // no write heartbeat in live mode, as the bash loop does
	}
	var ticks *ticks
	version := drivers.NewVersionWatch(spec.Format) // nil: the format says none
	started := false                                // the logs are open and the agent ran
	req := agentcall.Request{
		Spec: spec, Options: opts,
		OutLog: c.outName, ErrLog: c.errName,
		LiveHeader: fmt.Sprintf("\n\n=== Loop #%d - %s ===\n", l.n, c.started.Local().Format(events.LocalStamp)),
		Analysis:   func() *analysis.Stream { return analysis.NewStream(l.analysisOptions(c)) },
		Live:       l.liveOK, Format: spec.Format, LiveOut: liveNotes{l.bus},
		Started: func(last func() string) (io.Writer, func()) {
			started = true
			if l.liveOK {
				l.bus.Note(events.LiveStarted{Agent: l.display()})
			}
			var watch io.Writer
			if l.deps.Ticks && !l.liveOK {
				ticks = l.startTicks(spec.Format)
				watch = ticks
			}
			if version != nil {
				watch = joinWriters(watch, version)
			}
			// The first executing record is written before the agent starts, not
			// beside it: an agent's `git add -A` must never meet the atomic
			// write's temp file, which vanishes under it and fails the add.
			l.progressTick(last, 0)
			done := make(chan struct{})
			tickerDone := make(chan struct{})
			go func() {
				defer close(tickerDone)
				l.progressTicker(c, last, done)
			}()
			if w := l.s.WriteTimeout; w > 0 && l.s.Timeout > 0 && w >= l.s.Timeout {
				l.bus.Note(events.WriteTimeoutClamped{Write: w, Timeout: l.s.Timeout, Used: used})
			}
			return watch, func() {
				close(done)
				<-tickerDone // no progress.json "executing" after the call has ended
			}
		},
	}
	if l.collapsing() {
		req.StreamLog = c.streamName()
	}
	reply := l.deps.Agent.Run(l.ctx, req)
	c.reading = reply.Analysis
	if reply.Stream != nil {
		c.stream = reply.Stream
	}
	if started && l.liveOK {
		l.bus.Note(events.LiveEnded)
	}
	if reply.NotStored != nil {
		l.bus.Note(notStored(reply.NotStored))
	}
	if ticks != nil {
		ticks.stop()
	}
	l.agentVersion(version.Version())
	return reply.Outcome
}

// joinWriters writes to both; a nil one is left out.
func joinWriters(a io.Writer, b io.Writer) io.Writer {
	if a == nil {
		return b
	}
	return io.MultiWriter(a, b)
}

// agentVersion takes the version the CLI reported in its own output
// (Claude's init record; "" when none): it wins over what the install's
// files said at start-up (installedVersion), as it is the program that
// ran. The loop never starts the CLI to ask.
func (l *loop) agentVersion(v string) { l.takeVersion(v, fromOutput) }

// fromOutput is where a version from the CLI's own output came from.
const fromOutput = "its init record"

// takeVersion makes v (from says where it came from) the CLI's version:
// the next calls are built for it (drivers.Request.CLIVersion), and one
// older than the driver's minimum (CLAUDE_MIN_VERSION) is warned about
// once, as --doctor does. "" (unknown) changes nothing.
func (l *loop) takeVersion(v, from string) {
	ver, warning := l.checkVersion(l.drv, v)
	if ver == "" || ver == l.cliVersion {
		return
	}
	l.cliVersion, l.cliFrom = ver, from
	l.bus.Note(events.AgentFound{Agent: l.display(), Version: ver, Path: l.agentPath, From: from})
	if warning != "" {
		l.bus.Note(events.Logged{Level: events.Warn, Text: warning})
	}
}

// checkVersion compares the version v of drv's CLI with its minimum
// (CLAUDE_MIN_VERSION where the driver has it): the version as x.y.z (""
// when v holds none) and a warning when it is older.
func (l *loop) checkVersion(drv drivers.Driver, v string) (ver, warning string) {
	minimum := ""
	if drv.Traits().MinVersionSetting {
		minimum = l.s.MinVersion
	}
	return drivers.CheckVersion(drv, v, minimum)
}

// collapsing: with session continuity, a live call of a CLI whose stream
// ends in a "type":"result" record (drivers.Traits.ResultStream) keeps its
// whole stream in …_stream.log and only that record in the output log, as
// the bash loop does (the analysis reads either form).
func (l *loop) collapsing() bool {
	return l.liveOK && l.s.SessionContinuity && l.drv.Traits().ResultStream
}

// collapseStream cuts the output log of a successful call down to the
// final result record the stream copy found.
func (l *loop) collapseStream(c *call) {
	s := c.stream
	if s == nil {
		return
	}
	err := s.Finish()
	last, found, over := s.Result()
	if err != nil || over {
		// No stream copy when it could not be written (said once) or
		// the output is too big to cut down (said by nothing, as before).
		l.logs.RemoveLog(c.streamName())
		if err != nil {
			l.warn(err)
		}
		return
	}
	if !found {
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
// to the observers (Observer.Output).
type liveNotes struct{ bus *observe.Fan }

func (w liveNotes) Write(p []byte) (int, error) {
	w.bus.Output(time.Time{}, bytes.Clone(p))
	return len(p), nil
}
