package events

import (
	"errors"
	"fmt"
	"io/fs"
	"time"
)

// StopKind names why a run ended before the project was complete.
type StopKind uint8

// The ways a run stops early. The zero value is no stop: a completed run,
// or a start-up check that explained itself already.
const (
	StopNone         StopKind = iota
	StopMaxLoops              // --max-loops reached: Calls of Limit
	StopMaxCost               // --max-cost reached: Spent of Budget
	StopMaxTokens             // --max-tokens reached: Tokens of TokenLimit
	StopStalled               // STALL_LIMIT reached: Calls stalled iterations of Limit
	StopIdle                  // IDLE_MAX reached: idle for Idle of IdleMax
	StopGaveUp                // the failure guard gave up: Agent failed Failures times, the Last one logged in Log
	StopNotStored             // the failure guard gave up on output that could not be stored: Failures times, Err
	StopDenied                // a permission denial halted the run: Commands
	StopUsageLimit            // the person chose to stop at the usage limit
	StopBreaker               // the circuit breaker is open: Err is its own account
	StopSignal                // a signal stopped the run: Signal
	StopError                 // an error ended the run: Err
	StopUsageTooFar           // a usage limit resets later than USAGE_LIMIT_MAX_WAIT: Usage, MaxWait
	StopUsagePercent          // a window's reported use reached USAGE_STOP_PERCENT: Usage, StopPercent
	StopUsageWarning          // a usage warning with USAGE_WARNING_ACTION=stop: Usage
	StopOutage                // a provider outage lasted OUTAGE_MAX: Agent, Failures tries over Outage of OutageMax, the last Cause and Said
	StopPermanent             // the agent cannot work as set up: Agent, Cause, Fix, the line Said, the stderr Log
	StopUnproven              // COMPLETION_MODE=strict: the agent claimed done again, with nothing changed and nothing proven: Claims
	StopUnanswered            // nobody answered the agent's Question within AskTimeout, and ASK_TIMEOUT_ACTION=stop
	StopUsageHard             // the usage governor: a window's use on the machine reached a hard threshold: Hold (and Usage)
)

// Stop is how a run ended early, as values; its Sentence words it for the
// log, the final "ralph_loop: ..." line and run_finished's message. Only
// the fields of its Kind are set.
type Stop struct {
	Kind StopKind

	Calls, Limit       int
	Spent, Budget      float64
	Tokens, TokenLimit int64
	Idle, IdleMax      time.Duration

	Agent    string
	Failures int
	Last     Failure
	Log      string // the failed call's stderr log, as shown

	Commands string // the denied commands, comma-separated
	Signal   string // SIGINT, SIGTERM, SIGHUP or SIGQUIT

	// Err: the write error (StopNotStored), the breaker's error
	// (StopBreaker) or the run's error (StopError).
	Err error
	// DiskFull: the output could not be stored because the disk (or the
	// quota) is full, rather than because .ralph/ is not writable.
	DiskFull bool

	// What a failed call's error text says (drivers.Diagnosis): a
	// provider outage's last cause, or a permanent failure's cause and
	// fix, with the agent's line that told it.
	Cause, Fix, Said  string
	Outage, OutageMax time.Duration

	// The usage window a usage stop is about, and the setting it met.
	Usage       UsageWindow
	MaxWait     time.Duration
	StopPercent float64
	// Hold is the usage governor's hard threshold and the window's
	// reading (StopUsageHard).
	Hold *QuotaHold

	// The agent's question nobody answered (the agent's text: shown
	// through safetext), and ASK_TIMEOUT.
	Question   string
	AskTimeout time.Duration

	// Claims: the agent's claims of done that the loop refused in a row
	// (StopUnproven; a StopBreaker that opened while they went on).
	Claims *Claims
}

// Claims is a run of refused claims of done: how many in a row, why the
// last was refused (open tasks of the plan, or a failing gate), and the
// last loop that changed the project.
type Claims struct {
	Count int
	// Since is the last loop that changed the project; 0: none since the
	// run started.
	Since       int
	Open, Total int    // the plan's open and total tasks (Open 0: the plan did not refuse it)
	Gate        string // the first failing gate (TEST_COMMAND, QUALITY_GATES, TESTS_STATUS), "" for none
	Command     string // its command
	Strict      bool   // COMPLETION_MODE=strict (or --goal)
}

// FailureKind names how an agent call failed.
type FailureKind uint8

// The ways an agent call fails.
const (
	CallExited     FailureKind = iota // it exited on its own, with a code other than 0, or with 0 but an API error (is_error) in its result
	CallTimedOut                      // it ran past CLAUDE_TIMEOUT_MINUTES
	CallInactive                      // it printed nothing for INACTIVITY_TIMEOUT
	CallNotStarted                    // it could not be started
	CallTooLarge                      // it printed more than MAX_OUTPUT_MB
	CallNotStored                     // its output could not be stored
)

// Failure is how one agent call failed.
type Failure struct {
	Kind       FailureKind
	Code       int           // the call's exit code
	Inactivity time.Duration // CallInactive: the inactivity timeout
	MaxMB      int64         // CallTooLarge: MAX_OUTPUT_MB
	// Err is why the call could not start (CallNotStarted) or the
	// writer's error (CallNotStored); DiskFull, for CallNotStored: the
	// disk or the quota is full, which changes the remedy shown.
	Err      error
	DiskFull bool
	// NoRequest: the call exited 0, but its reply did nothing: it
	// answered as if it had been given no prompt.
	NoRequest bool
}

// Sentence is the one sentence that says why a run stopped early: the
// log's stop line, the final "ralph_loop: ..." line on stderr and
// run_finished's message. It is "" for no stop (StopNone).
func (s Stop) Sentence() string {
	switch s.Kind {
	case StopMaxLoops:
		return fmt.Sprintf("stopped after %d agent %s (--max-loops %d)", s.Calls, callWord(s.Calls), s.Limit)
	case StopMaxCost:
		return fmt.Sprintf("cost budget reached: $%.4f spent of $%.4f (--max-cost)", s.Spent, s.Budget)
	case StopMaxTokens:
		return fmt.Sprintf("token budget reached: %d tokens used of %d (--max-tokens)", s.Tokens, s.TokenLimit)
	case StopStalled:
		return fmt.Sprintf("stalled: %d iterations in a row with the same reply and no change in git (STALL_LIMIT=%d)", s.Calls, s.Limit)
	case StopIdle:
		return fmt.Sprintf("idle for %s (IDLE_MAX=%s); nothing left to do", s.Idle.Round(time.Second), s.IdleMax)
	case StopGaveUp:
		return fmt.Sprintf("%s failed %d times in a row (last: %s, code %d); check %s and the agent's setup, then run ralph_loop again",
			s.Agent, s.Failures, s.Last.Words(), s.Last.Code, s.Log)
	case StopNotStored:
		return fmt.Sprintf("the agent's output could not be stored %d times in a row (%v); %s, then run ralph_loop again", s.Failures, writeError(s.Err), writeFix(s.DiskFull))
	case StopDenied:
		return "permission denied: " + s.Commands + " (allow the tools in ALLOWED_TOOLS, then run again)"
	case StopUsageLimit:
		if s.Usage.ResetsAt == nil {
			return "stopped at the usage limit" + ofWindow("of", s.Usage) + "; its reset time was not reported: run ralph_loop again once it has reset"
		}
		return "stopped at the usage limit" + ofWindow("of", s.Usage) + "; " + resetWords(s.Usage) + ": run ralph_loop again after the reset"
	case StopUsageTooFar:
		if s.Hold != nil {
			return softTooFar(s)
		}
		if s.Usage.ResetsAt == nil {
			return fmt.Sprintf("usage limit reached in the %s window; its reset time was not reported and the default wait of 1h is longer than USAGE_LIMIT_MAX_WAIT=%s: run ralph_loop again later",
				s.Usage.Window, s.MaxWait)
		}
		return fmt.Sprintf("usage limit reached in the %s window; %s, later than USAGE_LIMIT_MAX_WAIT=%s: run ralph_loop again after the reset",
			s.Usage.Window, resetWords(s.Usage), s.MaxWait)
	case StopUsagePercent:
		return fmt.Sprintf("usage of the %s window reached %s%% (USAGE_STOP_PERCENT=%s); %s: run ralph_loop again after the reset",
			s.Usage.Window, percent(*s.Usage.UsedPercent), percent(s.StopPercent), resetWords(s.Usage))
	case StopUsageHard:
		if s.Hold != nil {
			return hardStop(s)
		}
	case StopUsageWarning:
		return fmt.Sprintf("usage warning for the %s window (USAGE_WARNING_ACTION=stop); %s: run ralph_loop again after the reset",
			s.Usage.Window, resetWords(s.Usage))
	case StopOutage:
		return fmt.Sprintf("%s's provider has been failing for %s, OUTAGE_MAX=%s (%d tries; last: %s%s); run ralph_loop again once it is back",
			s.Agent, s.Outage.Round(time.Second), s.OutageMax, s.Failures, s.Cause, said(s.Said))
	case StopPermanent:
		return fmt.Sprintf("%s: %s%s", s.Cause, s.Fix, said(s.Said))
	case StopUnanswered:
		return unansweredStop(s)
	case StopSignal:
		return "stopped by " + s.Signal
	case StopUnproven:
		return "not done: " + s.Claims.words() + " (COMPLETION_MODE=strict); " + s.Claims.fix()
	case StopBreaker:
		if s.Err != nil && s.Claims != nil {
			return s.Err.Error() + "; " + s.Claims.words()
		}
		if s.Err != nil {
			return s.Err.Error()
		}
	case StopError:
		if s.Err != nil {
			return s.Err.Error()
		}
	}
	return ""
}

// words say what a run of refused claims of done was: "the agent claimed
// done 3 times while TEST_COMMAND `go test ./...` fails; nothing changed
// since loop 2".
func (c *Claims) words() string {
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

// fix says what to do after a strict run stopped on claims.
func (c *Claims) fix() string {
	if c != nil && c.Open > 0 {
		return "finish the open tasks or take them out of the plan, then run ralph_loop again"
	}
	return "make the failing check pass, then run ralph_loop again"
}

// conditionLines is the log line of a stop condition: ERROR with a stop
// sign for a fault, INFO for a stop the person asked for (a budget, a
// limit or a threshold they set was reached: nothing went wrong), WARN
// for the rest (a usage limit that resets too late to wait for, a
// question nobody answered...).
func (s Stop) conditionLines() []Line {
	msg := s.Sentence()
	switch {
	case s.severe():
		return []Line{logf(Error, "🛑 %s", msg)}
	case s.Kind == StopMaxLoops:
		return []Line{logf(Info, "Max loops reached: %s", msg)}
	case s.asked():
		return []Line{logText(Info, msg)}
	}
	return []Line{logText(Warn, msg)}
}

// asked reports whether the stop is one the person asked for with a
// setting of theirs, reached as they meant it: --max-loops, --max-cost,
// --max-tokens, IDLE_MAX, USAGE_STOP_PERCENT, USAGE_WARNING_ACTION=stop
// and the usage governor's hard threshold.
func (s Stop) asked() bool {
	switch s.Kind {
	case StopMaxLoops, StopMaxCost, StopMaxTokens, StopIdle, StopUsagePercent, StopUsageWarning, StopUsageHard:
		return true
	}
	return false
}

// severe reports whether the stop is a fault to look into (an ERROR line)
// rather than a limit reached (an INFO or WARN line).
func (s Stop) severe() bool {
	switch s.Kind {
	case StopStalled, StopGaveUp, StopNotStored, StopOutage, StopPermanent, StopUnproven:
		return true
	}
	return false
}

// Words say how an agent call failed: a failed call's log line, its
// status.json exit_reason and the failure guard's stop line.
func (f Failure) Words() string {
	switch f.Kind {
	case CallTimedOut:
		return "timed out"
	case CallInactive:
		return fmt.Sprintf("timed out (no output for %s)", f.Inactivity)
	case CallNotStarted:
		return "could not start"
	case CallTooLarge:
		return fmt.Sprintf("output too large (more than MAX_OUTPUT_MB=%d)", f.MaxMB)
	case CallNotStored:
		return "output could not be stored"
	case CallExited:
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

// callWord is "call" or "calls" for n agent calls.
func callWord(n int) string {
	if n == 1 {
		return "call"
	}
	return "calls"
}
