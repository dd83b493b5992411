package console

import (
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"time"

	"github.com/ralphloop/ralph_loop/internal/events"
	"github.com/ralphloop/ralph_loop/internal/observe"
	"github.com/ralphloop/ralph_loop/internal/supervise"
)

// EventWords are the words the fan gives an event's typed values
// (observe.Fan.SetWords): the same sentences the log lines use, so
// events.jsonl, status.json, the console and ralph.log say one thing.
func EventWords() observe.Words {
	return observe.Words{Stop: StopLine, Failure: failureWords}
}

// StopLine is the one sentence that says why a run stopped early: the
// log's stop line, the final "ralph_loop: ..." line on stderr and
// run_finished's message. It is "" for no stop (events.StopNone).
func StopLine(s events.Stop) string {
	switch s.Kind {
	case events.StopMaxLoops:
		return fmt.Sprintf("stopped after %d agent calls (--max-loops %d)", s.Calls, s.Limit)
	case events.StopMaxCost:
		return fmt.Sprintf("cost budget reached: $%.4f spent of $%.4f (--max-cost)", s.Spent, s.Budget)
	case events.StopMaxTokens:
		return fmt.Sprintf("token budget reached: %d tokens used of %d (--max-tokens)", s.Tokens, s.TokenLimit)
	case events.StopStalled:
		return fmt.Sprintf("stalled: %d iterations in a row with the same reply and no change in git (STALL_LIMIT=%d)", s.Calls, s.Limit)
	case events.StopIdle:
		return fmt.Sprintf("idle for %s (IDLE_MAX=%s); nothing left to do", s.Idle.Round(time.Second), s.IdleMax)
	case events.StopGaveUp:
		return fmt.Sprintf("%s failed %d times in a row (last: %s, code %d); check %s and the agent's setup, then run ralph_loop again",
			s.Agent, s.Failures, failureWords(s.Last), s.Last.Code, s.Log)
	case events.StopNotStored:
		return fmt.Sprintf("the agent's output could not be stored %d times in a row (%v); %s, then run ralph_loop again", s.Failures, writeError(s.Err), writeFix(s.DiskFull))
	case events.StopDenied:
		return "permission denied: " + s.Commands + " (allow the tools in ALLOWED_TOOLS, then run again)"
	case events.StopUsageLimit:
		return "stopped at the usage limit; run ralph_loop again once it has reset"
	case events.StopUsageTooFar:
		if s.Usage.ResetsAt == nil {
			return fmt.Sprintf("usage limit reached in the %s window; its reset time was not reported and the default wait of 1h is longer than USAGE_LIMIT_MAX_WAIT=%s: run ralph_loop again later",
				s.Usage.Window, s.MaxWait)
		}
		return fmt.Sprintf("usage limit reached in the %s window; %s, later than USAGE_LIMIT_MAX_WAIT=%s: run ralph_loop again after the reset",
			s.Usage.Window, resetWords(s.Usage), s.MaxWait)
	case events.StopUsagePercent:
		return fmt.Sprintf("usage of the %s window reached %s%% (USAGE_STOP_PERCENT=%s); %s: run ralph_loop again after the reset",
			s.Usage.Window, percent(*s.Usage.UsedPercent), percent(s.StopPercent), resetWords(s.Usage))
	case events.StopUsageWarning:
		return fmt.Sprintf("usage warning for the %s window (USAGE_WARNING_ACTION=stop); %s: run ralph_loop again after the reset",
			s.Usage.Window, resetWords(s.Usage))
	case events.StopOutage:
		return fmt.Sprintf("%s's provider has been failing for %s, OUTAGE_MAX=%s (%d tries; last: %s%s); run ralph_loop again once it is back",
			s.Agent, s.Outage.Round(time.Second), s.OutageMax, s.Failures, s.Cause, said(s.Said))
	case events.StopPermanent:
		return fmt.Sprintf("%s: %s%s", s.Cause, s.Fix, said(s.Said))
	case events.StopSignal:
		return "stopped by " + s.Signal
	case events.StopUnproven:
		return "not done: " + claimsWords(s.Claims) + " (COMPLETION_MODE=strict); " + unprovenFix(s.Claims)
	case events.StopBreaker:
		if s.Err != nil && s.Claims != nil {
			return s.Err.Error() + "; " + claimsWords(s.Claims)
		}
		if s.Err != nil {
			return s.Err.Error()
		}
	case events.StopError:
		if s.Err != nil {
			return s.Err.Error()
		}
	}
	return ""
}

// claimsWords says what a run of refused claims of done was: "the agent
// claimed done 3 times while TEST_COMMAND `go test ./...` fails; nothing
// changed since loop 2".
func claimsWords(c *events.Claims) string {
	if c == nil {
		return "the agent claimed done with nothing proven"
	}
	times := "once"
	if c.Count > 1 {
		times = fmt.Sprintf("%d times", c.Count)
	}
	var why string
	switch {
	case c.Open > 0:
		why = fmt.Sprintf("with %d of %d tasks open in @fix_plan.md", c.Open, c.Total)
	case c.Gate != "" && c.Command == "": // the agent's own TESTS_STATUS
		why = "while it reported TESTS_STATUS: FAILING"
	case c.Gate != "":
		why = fmt.Sprintf("while %s `%s` fails", c.Gate, flat(c.Command))
	default:
		why = "with nothing proven"
	}
	since := "nothing changed since the run started"
	if c.Since > 0 {
		since = fmt.Sprintf("nothing changed since loop %d", c.Since)
	}
	return fmt.Sprintf("the agent claimed done %s %s; %s", times, why, since)
}

// unprovenFix says what to do after a strict run stopped on claims.
func unprovenFix(c *events.Claims) string {
	if c != nil && c.Open > 0 {
		return "finish the open tasks or take them out of the plan, then run ralph_loop again"
	}
	return "make the failing check pass, then run ralph_loop again"
}

// said quotes the agent's own line after a cause: " — it said: ...".
func said(line string) string {
	if line == "" {
		return ""
	}
	return " — it said: " + line
}

// resetWords says when a usage window resets, at the time and zone the
// engine gave.
func resetWords(w events.UsageWindow) string {
	if w.ResetsAt == nil {
		return "its reset time was not reported"
	}
	return "it resets at " + resetTime(*w.ResetsAt)
}

// windowWords names a usage window: "the five_hour window", or "a window
// the CLI did not name".
func windowWords(w events.UsageWindow) string {
	if !w.Named() {
		return "a window the CLI did not name"
	}
	return "the " + w.Window + " window"
}

// percent words a percentage without trailing zeros (92, 92.5).
func percent(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// stopping renders the log line of a stop condition: ERROR with a stop
// sign for a fault, WARN for a limit the person set.
func stopping(s events.Stop) []part {
	msg := StopLine(s)
	switch {
	case severe(s):
		return []part{line(events.Error, "🛑 %s", msg)}
	case s.Kind == events.StopMaxLoops:
		return []part{line(events.Warn, "Max loops reached: %s", msg)}
	}
	return []part{text(events.Warn, msg)}
}

// severe reports whether the stop is a fault to look into (an ERROR line)
// rather than a limit the person set (a WARN line).
func severe(s events.Stop) bool {
	switch s.Kind {
	case events.StopStalled, events.StopGaveUp, events.StopNotStored, events.StopOutage, events.StopPermanent, events.StopUnproven:
		return true
	}
	return false
}

// failureWords says how an agent call failed: a failed call's log line,
// its status.json exit_reason and the failure guard's stop line.
func failureWords(f events.Failure) string {
	switch f.Reason {
	case supervise.TimedOut:
		return "timed out"
	case supervise.Inactive:
		return fmt.Sprintf("timed out (no output for %s)", f.Inactivity)
	case supervise.StartFailed:
		return "could not start"
	case supervise.OutputTooLarge:
		return fmt.Sprintf("output too large (more than MAX_OUTPUT_MB=%d)", f.MaxMB)
	case supervise.WriteFailed:
		return "output could not be stored"
	case supervise.Exited:
		if f.NoRequest {
			return "did nothing: it answered as if it had been given no prompt"
		}
		if f.Code == 0 {
			return "reported an error" // an API error (is_error) in its result
		}
	}
	return exitWords(f.Code)
}

// exitWords words an exit code as the bash loop (and bmalph's dashboard)
// does.
func exitWords(code int) string {
	switch code {
	case 0:
		return "completed"
	case 1:
		return "error"
	case 124:
		return "timed out"
	case 130:
		return "interrupted (SIGINT)"
	case 137:
		return "killed (OOM or SIGKILL)"
	case 143:
		return "terminated (SIGTERM)"
	default:
		return fmt.Sprintf("error (exit %d)", code)
	}
}

// notStored is the line that says the agent's output could not be
// stored (err, the writer's error): what, where, and what to do.
func notStored(err error, diskFull bool) string {
	return fmt.Sprintf("💾 Agent output could not be stored (%v); the call counts as failed — %s, then run ralph_loop again", writeError(err), writeFix(diskFull))
}

// writeFix says what to do about output that could not be stored.
func writeFix(diskFull bool) string {
	if diskFull {
		return "free disk space"
	}
	return "make .ralph/ writable"
}

// writeError drops the "output could not be written" prefixes from a
// write error, keeping the writer's own error, which names the file.
func writeError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe
	}
	return err
}
