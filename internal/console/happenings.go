package console

import (
	"fmt"
	"math"
	"time"

	"github.com/ralphloop/ralph_loop/internal/clip"
	"github.com/ralphloop/ralph_loop/internal/events"
	"github.com/ralphloop/ralph_loop/internal/observe"
	"github.com/ralphloop/ralph_loop/internal/supervise"
)

// speaker words every report a person is told of, for the console and for
// logs/ralph.log alike, and hands the parts to show: the happenings of the
// lifecycle that have words (a breaker move, a driver switch, the call's
// heartbeat, an idle call, a limit, a pause, a review, a stop condition or
// a completed run's end), the agent's output, warnings, and what is said
// (render).
type speaker struct {
	observe.Observer
	r    renderer
	show func(ts time.Time, ps []part)
}

func (s *speaker) Said(ts time.Time, n events.Notice) { s.show(ts, s.r.render(n)) }

func (s *speaker) Output(ts time.Time, data []byte) { s.show(ts, []part{{text: string(data)}}) }

func (s *speaker) Warned(ts time.Time, level events.Level, err error) {
	s.show(ts, []part{line(level, "%v", err)})
}

func (s *speaker) CallProgress(m events.Moment, w events.AgentWorking) {
	s.show(m.TS, agentWorking(w))
}

func (s *speaker) RunStarted(m events.Moment, _, _ string) {
	s.show(m.TS, []part{text(events.Info, "Starting main loop...")})
}

func (s *speaker) CallEnded(m events.Moment, c events.Call) { s.show(m.TS, s.r.callEnded(c)) }

// callEnded words a call's end: the usage limit that stopped it, the
// breaker it opened, how it failed, an idle call, a read-only call retried.
func (r *renderer) callEnded(c events.Call) []part {
	var p []part
	if c.Limit != nil {
		p = append(p, line(events.Error, "🚫 %s usage limit reached (%s)", c.Agent, windowWords(*c.Limit)))
	}
	readOnly := c.Iteration != nil && c.Iteration.Outcome == "read_only_timeout"
	if c.BreakerOpened {
		// The reset command depends on how the loop was started.
		p = append(p,
			line(events.Error, "🛑 Circuit breaker has opened - halting loop"),
			line(events.Info, "Run '%s' to reset the circuit breaker after addressing issues", r.resetCommand()))
		if readOnly {
			p = append(p, text(events.Error, "Circuit breaker opened after repeated read-only timeouts"))
		}
	}
	if c.Failure != nil {
		p = append(p, callFailed(c)...)
	}
	if c.Outcome == events.IterationIdle {
		p = append(p, line(events.Info, "💤 Agent is idle (%d in a row)", c.Idle))
	}
	if readOnly && !c.BreakerOpened {
		p = append(p, text(events.Warn, "Write heartbeat: read-only loop, retrying with write-early context"))
	}
	return p
}

func (s *speaker) BreakerMoved(m events.Moment, c events.BreakerChange) {
	s.show(m.TS, breakerMoved(c))
}

func (s *speaker) DriverSwitched(m events.Moment, d events.DriverSwitch) {
	s.show(m.TS, driverSwitched(d))
}

func (s *speaker) LimitHit(m events.Moment, w events.Wait) { s.show(m.TS, limitHit(m, w)) }

func (s *speaker) WaitStarted(m events.Moment, w events.Wait) { s.show(m.TS, waitStarted(w)) }

// waitStarted says why the loop waits: paused, or backing off after a
// failed call or in a provider outage. Other waits have their countdown.
func waitStarted(w events.Wait) []part {
	switch w.Kind {
	case events.WaitPause:
		return []part{text(events.Warn, "Paused (ralph_loop --pause). Waiting; run 'ralph_loop --resume' in this project to continue.")}
	case "failure_backoff":
		of := fmt.Sprint(w.MaxTries)
		if w.MaxTries >= math.MaxInt32 {
			of = "unlimited"
		}
		return []part{line(events.Warn, "Execution failed, waiting %s before retry (failure %d of %s)...", w.Delay, w.Tries, of)}
	case "outage_backoff":
		return []part{line(events.Warn, "⏳ Provider outage: %s%s; next try in %s (try %d, failing for %s; %s)",
			w.Cause, said(w.Said), w.Delay.Round(time.Second), w.Tries, w.Lasted.Round(time.Second), outageLimit(w.OutageMax))}
	}
	return nil
}

func (s *speaker) WaitEnded(m events.Moment, w events.Wait) {
	if w.Kind == events.WaitPause {
		s.show(m.TS, []part{text(success, "Resumed.")})
	}
}

func (s *speaker) Reviewed(m events.Moment, level events.Level, msg string) {
	s.show(m.TS, []part{text(level, msg)})
}

func (s *speaker) Stopped(m events.Moment, e events.End) {
	if e.Stop != nil && e.Stop.Kind == events.StopUsageLimit {
		// The person chose to stop at the usage limit (the only end of
		// this kind); the run ends at once.
		s.show(m.TS, []part{text(events.Info, "User chose to exit. Exiting loop...")})
	}
	if e.Condition && e.Stop != nil {
		s.show(m.TS, stopping(*e.Stop))
	}
	s.show(m.TS, completed(m, e))
}

// completed closes a completed run: its final stats, then the evidence
// the completion rests on (the run's last line).
func completed(m events.Moment, e events.End) []part {
	if e.Evidence == nil {
		return nil
	}
	return []part{
		line(success, "🎉 Ralph has completed the project! Final stats:"),
		line(events.Info, "  - Total loops: %d", m.Loop),
		line(events.Info, "  - API calls used: %d%s", m.Calls, failedWords(m.FailedCalls)),
		line(events.Info, "  - Exit reason: %s", e.Reason),
		completedLine(e.Reason, *e.Evidence)}
}

// failedWords adds the failed calls to a count of calls: " (3 failed)".
func failedWords(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(" (%d failed)", n)
}

// retryWords says a call follows failed ones: ", retry 3".
func retryWords(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(", retry %d", n)
}

// agentWorking is the heartbeat while the agent runs (DEBUG), from its
// first tick on.
func agentWorking(w events.AgentWorking) []part {
	secs := int(w.Elapsed / time.Second)
	switch {
	case secs == 0:
		return nil
	case w.Last != "":
		return []part{line(debug, "%s: %s... (%ds)", w.Agent, clip.Bytes(w.Last, 80), secs)}
	}
	return []part{line(debug, "%s working... (%ds elapsed)", w.Agent, secs)}
}

// breakerMoved is the breaker's own account, then the move.
func breakerMoved(c events.BreakerChange) []part {
	level := events.Warn
	if c.Closed {
		level = success
	}
	return append(outLines(c.Report), line(level, "Circuit breaker: %s", BreakerMove(c.From, c.To, c.Reason)))
}

// limitHit: the hour's calls are used up, or a usage window's limit (or
// the CLI's warning of it) stops the calls.
func limitHit(m events.Moment, w events.Wait) []part {
	u := w.Usage
	switch {
	case w.Kind == "rate_limit":
		return []part{
			text(events.Warn, limitReachedLine(m.CallsThisHour, m.MaxCalls)),
			text(events.Info, sleepingLine(w.Delay))}
	case u == nil:
		return nil
	case w.Warning:
		used := ""
		if p := u.UsedPercent; p != nil {
			used = " (" + percent(*p) + "% used)"
		}
		return []part{line(events.Warn, "⚠️ Usage warning for the %s window%s; %s: waiting for it (USAGE_WARNING_ACTION=wait)", u.Window, used, resetWords(*u))}
	}
	return []part{line(events.Warn, "🛑 Usage limit reached for %s; %s", windowWords(*u), resetWords(*u))}
}

// callFailed says how a call failed (and why it could not start), what to
// do when the loop stopped it for its output, and the end of its stderr.
func callFailed(c events.Call) []part {
	f := *c.Failure
	p := []part{line(events.Error, "❌ %s exited: %s (code %d)", c.Agent, failureWords(f), f.Code)}
	switch f.Reason {
	case supervise.StartFailed:
		if f.Err != nil {
			p = append(p, line(events.Error, "  %v", f.Err))
		}
	case supervise.WriteFailed:
		p = append(p, text(events.Error, notStored(f.Err, f.DiskFull)))
	case supervise.OutputTooLarge:
		var file string
		if c.Iteration != nil {
			file = c.Iteration.OutputFile
		}
		p = append(p, line(events.Error, "  the agent printed more than MAX_OUTPUT_MB=%d MB and was stopped; %s keeps the head and the tail (raise MAX_OUTPUT_MB, or 0 for no limit, if this output was expected)", f.MaxMB, file))
	}
	if c.StderrTail != "" {
		p = append(p,
			line(events.Error, "  stderr (last 3 lines): %s", c.StderrTail),
			line(events.Error, "  full stderr log: %s", c.StderrLog))
	}
	return p
}
