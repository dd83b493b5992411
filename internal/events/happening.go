package events

import (
	"fmt"
	"math"
	"time"

	"github.com/ralphloop/ralph_loop/internal/clip"
)

// Moment is what every report of the run's lifecycle carries: when it
// happened, in which run, the run's state then (so a surface renders
// itself from the last report alone) and, for status.json, what the loop
// is doing (Action, its last_action) and bmalph's status value. An empty
// Status leaves status.json as it is.
type Moment struct {
	TS    time.Time
	RunID string
	Snapshot
	Action string
	Status string
	// Question is the agent's question the loop waits on (status.json's
	// question), nil when none.
	Question *Question
}

// Call is how an agent call ended (observe.Observer.CallEnded).
type Call struct {
	// Outcome is the event log's name of the end: IterationCompleted,
	// IterationFailed, IterationTimedOut, IterationIdle or
	// IterationDenied.
	Outcome   Type
	Iteration *Iteration
	// Failure is why a failed call failed.
	Failure *Failure
	// DriverExitCode is status.json's driver_exit_code, set when the
	// call's end sets it.
	DriverExitCode *int
	// Idle, on an idle call (IterationIdle), is the idle calls in a row.
	Idle int
	// Agent, on a failed call, is the agent's name as shown ("Claude
	// Code"); StderrTail is the end of its stderr (its last lines, on one
	// line, "" for none) and StderrLog the file that holds the whole of
	// it. The console says them with the failure.
	Agent      string
	StderrTail string
	StderrLog  string
	// Limit, on a call its provider's usage limit stopped, is the window
	// that hit it, as far as the CLI told it.
	Limit *UsageWindow
	// BreakerOpened: the circuit breaker opened on the call's result and
	// halts the run; ResetCommand closes it by hand, where the loop was
	// started.
	BreakerOpened bool
	ResetCommand  string
}

// FailureWords are how a failed call failed (Failure.Words): its event
// line's reason and status.json's exit_reason; "" for a call that did not
// fail.
func (c Call) FailureWords() string {
	if c.Failure == nil {
		return ""
	}
	return c.Failure.Words()
}

// Lines word a call's end (at its moment, as every happening's words
// are: a happening is no Notice): the usage limit that stopped it, the breaker
// it opened, how it failed, an idle call, a read-only call retried.
func (c Call) Lines(Moment) []Line {
	var l []Line
	if c.Limit != nil {
		l = append(l, logf(Error, "🚫 %s usage limit reached (%s)", c.Agent, windowWords(*c.Limit)))
	}
	readOnly := c.Iteration != nil && c.Iteration.Outcome == "read_only_timeout"
	if c.BreakerOpened {
		l = append(l,
			logText(Error, "🛑 Circuit breaker has opened - halting loop"),
			logf(Info, "Run '%s' to reset the circuit breaker after addressing issues", c.ResetCommand))
		if readOnly {
			l = append(l, logText(Error, "Circuit breaker opened after repeated read-only timeouts"))
		}
	}
	if c.Failure != nil {
		l = append(l, c.failedLines()...)
	}
	if c.Outcome == IterationIdle {
		l = append(l, logf(Info, "💤 Agent is idle (%d in a row)", c.Idle))
	}
	if readOnly && !c.BreakerOpened {
		l = append(l, logText(Warn, "Write heartbeat: read-only loop, retrying with write-early context"))
	}
	return l
}

// failedLines say how a call failed (and why it could not start), what
// to do when the loop stopped it for its output, and the end of its
// stderr.
func (c Call) failedLines() []Line {
	f := *c.Failure
	l := []Line{logf(Error, "❌ %s exited: %s (code %d)", c.Agent, f.Words(), f.Code)}
	switch f.Kind {
	case CallNotStarted:
		if f.Err != nil {
			l = append(l, logf(Error, "  %v", f.Err))
		}
	case CallNotStored:
		l = append(l, logText(Error, notStored(f.Err, f.DiskFull)))
	case CallTooLarge:
		var file string
		if c.Iteration != nil {
			file = c.Iteration.OutputFile
		}
		l = append(l, logf(Error, "  the agent printed more than MAX_OUTPUT_MB=%d MB and was stopped; %s keeps the head and the tail (raise MAX_OUTPUT_MB, or 0 for no limit, if this output was expected)", f.MaxMB, file))
	}
	if c.StderrTail != "" {
		l = append(l,
			logf(Error, "  stderr (last 3 lines): %s", c.StderrTail),
			logf(Error, "  full stderr log: %s", c.StderrLog))
	}
	return l
}

// AgentWorking is the agent call as it works, every 10 s (the value of
// observe.Observer.CallProgress): the time since it started and its last
// output line, if any.
type AgentWorking struct {
	Agent   string
	Last    string
	Elapsed time.Duration
}

// Lines are the heartbeat while the agent runs (DEBUG), from its first
// tick on.
func (w AgentWorking) Lines(Moment) []Line {
	secs := int(w.Elapsed / time.Second)
	switch {
	case secs == 0:
		return nil
	case w.Last != "":
		return []Line{logf(Debug, "%s: %s... (%ds)", w.Agent, clip.Bytes(w.Last, 80), secs)}
	}
	return []Line{logf(Debug, "%s working... (%ds elapsed)", w.Agent, secs)}
}

// Wait is a wait of the loop (observe.Observer.WaitStarted, WaitEnded,
// LimitHit).
type Wait struct {
	// Kind is loop_delay, idle_backoff, failure_backoff, outage_backoff,
	// rate_limit, usage_limit, or WaitPause (the project is paused: no
	// length, it lasts until the person resumes it).
	Kind  string
	Delay time.Duration
	Until time.Time // when it ends; zero when not known (an end)
	// Skipped: a Ctrl+C cut it short. Reason: "stopped" when a stop did;
	// on a usage limit, the limit's reason.
	Skipped bool
	Reason  string
	// Usage, on a usage limit (LimitHit), is the window that hit it;
	// Warning says the CLI only warned of it (USAGE_WARNING_ACTION=wait).
	Usage   *UsageWindow
	Warning bool
	// Why a back-off waits, said as it starts.
	Tries     int           // a failure_backoff's failed calls in a row; an outage_backoff's failed tries so far
	MaxTries  int           // the failed calls in a row that stop the run (math.MaxInt32 or more: no limit, MAX_CONSECUTIVE_FAILURES=0)
	Cause     string        // the outage's cause
	Said      string        // the agent's line that told it
	Lasted    time.Duration // how long the outage has lasted
	OutageMax time.Duration // how long it may last before it stops the run (0: never, OUTAGE_MAX=0)
	// Quota, on the usage governor's wait (Kind WaitUsageSoft), is the
	// threshold reached and the window's reading.
	Quota *QuotaHold
	// Question, on a wait of kind WaitQuestion, is the agent's question
	// and, as the wait ends, what came of it.
	Question *Question
}

// WaitPause is the Kind of the wait while the project is paused.
const WaitPause = "pause"

// StartLines say why the loop waits: paused, or backing off after a
// failed call or in a provider outage. Other waits have their countdown
// (WaitTick).
func (w Wait) StartLines(Moment) []Line {
	switch w.Kind {
	case WaitPause:
		return []Line{logText(Warn, "Paused (ralph_loop --pause). Waiting; run 'ralph_loop --resume' in this project to continue.")}
	case WaitQuestion:
		return w.questionAsked()
	case "failure_backoff":
		of := fmt.Sprint(w.MaxTries)
		if w.MaxTries >= math.MaxInt32 {
			of = "unlimited"
		}
		return []Line{logf(Warn, "Execution failed, waiting %s before retry (failure %d of %s)...", w.Delay, w.Tries, of)}
	case "outage_backoff":
		return []Line{logf(Warn, "⏳ Provider outage: %s%s; next try in %s (try %d, failing for %s; %s)",
			w.Cause, said(w.Said), w.Delay.Round(time.Second), w.Tries, w.Lasted.Round(time.Second), outageLimit(w.OutageMax))}
	}
	return nil
}

// EndLines: a pause is over.
func (w Wait) EndLines(Moment) []Line {
	switch w.Kind {
	case WaitPause:
		return []Line{logText(Success, "Resumed.")}
	case WaitQuestion:
		return w.questionEnded()
	}
	return nil
}

// LimitLines: the hour's calls (m's count of its limit) are used up, or a
// usage window's limit (or the CLI's warning of it) stops the calls.
func (w Wait) LimitLines(m Moment) []Line {
	u := w.Usage
	switch {
	case w.Kind == "rate_limit":
		return []Line{
			logText(Warn, limitReachedLine(m.CallsThisHour, m.MaxCalls)),
			logText(Info, sleepingLine(w.Delay))}
	case w.Kind == WaitUsageSoft && w.Quota != nil:
		return w.quotaHold(m.TS)
	case u == nil:
		return nil
	case w.Warning:
		used := ""
		if p := u.UsedPercent; p != nil {
			used = " (" + percent(*p) + "% used)"
		}
		return []Line{logf(Warn, "⚠️ Usage warning for the %s window%s; %s: waiting for it (USAGE_WARNING_ACTION=wait)", u.Window, used, resetWords(*u))}
	}
	return []Line{logf(Warn, "🛑 Usage limit reached%s; %s", ofWindow("for", *u), resetWords(*u))}
}

// BreakerChange: the breaker moved from one state to another (the value
// of observe.Observer.BreakerMoved). Report is the breaker's own account,
// shown on the console.
type BreakerChange struct {
	From   string
	To     string
	Reason string
	Closed bool // the breaker closed again: good news
	Report []string
}

// Lines: the breaker's own account, then the move.
func (c BreakerChange) Lines(Moment) []Line {
	level := Warn
	if c.Closed {
		level = Success
	}
	return append(outLines(c.Report), logf(level, "Circuit breaker: %s", BreakerMove(c.From, c.To, c.Reason)))
}

// WaitQuestion is the Kind of the wait for the person's answer to the
// agent's question: no call is made meanwhile.
const WaitQuestion = "question"

// Question is a question the agent asked the person: the question_*
// event lines' question (docs/EVENTS.md), and status.json's while the loop
// waits for the answer. Text is the agent's (untrusted: shown through
// safetext, at most analysis.QuestionMax bytes); Answer the person's.
type Question struct {
	Text    string    `json:"text"`
	Loop    int       `json:"loop"` // the loop whose call asked it
	AskedAt time.Time `json:"asked_at"`
	// Until is when the wait for the answer ends (ASK_TIMEOUT); zero when
	// the loop does not wait (ASK_TIMEOUT=0).
	Until *time.Time `json:"until,omitempty"`
	// AnswerFile (question_asked) is where a bot or a hook writes the
	// answer; Answer and Via (question_answered) are the answer and where
	// it came from: command (ralph_loop --answer), dashboard or file.
	AnswerFile string `json:"answer_file,omitempty"`
	Answer     string `json:"answer,omitempty"`
	Via        string `json:"via,omitempty"`
	// Then (question_unanswered) is what the loop did: continue, skip
	// (Task, the plan's task, was set aside) or stop (ASK_TIMEOUT_ACTION).
	Then string `json:"then,omitempty"`
	Task string `json:"task,omitempty"`
}

// End is how the run ended (observe.Observer.Stopped).
type End struct {
	Reason         string // status.json's exit_reason
	ExitCode       int
	DriverExitCode *int
	// Stop is how a run ended early, nil otherwise. Condition: a stop
	// condition (a limit, a stall, the failure guard, an outage...)
	// ended it, which its Lines say.
	Stop      *Stop
	Condition bool
	// Evidence, on a completed run, is what the completion rests on.
	Evidence *Evidence
}

// Lines: the person's choice to stop at the usage limit, the stop
// condition that ended the run, or a completed run's final stats (m's
// loops and calls) and the evidence the completion rests on.
func (e End) Lines(m Moment) []Line {
	var l []Line
	if e.Stop != nil && e.Stop.Kind == StopUsageLimit {
		// The person chose to stop at the usage limit (the only end of
		// this kind); the run ends at once.
		l = append(l, logText(Info, "User chose to exit. Exiting loop..."))
	}
	if e.Condition && e.Stop != nil {
		l = append(l, e.Stop.conditionLines()...)
	}
	if e.Evidence != nil {
		l = append(l,
			logText(Success, "🎉 Ralph has completed the project! Final stats:"),
			totalLoops(m),
			logf(Info, "  - API calls used: %d%s", m.Calls, failedWords(m.FailedCalls)),
			logf(Info, "  - Exit reason: %s", e.Reason),
			e.Evidence.line(e.Reason))
	}
	return l
}

// Start is how the main loop starts (observe.Observer.RunStarted): the
// driver it calls, and the version its CLI reported ("" when unknown).
type Start struct {
	Driver  string
	Version string
}

func (Start) Lines(Moment) []Line { return []Line{logText(Info, "Starting main loop...")} }

// Review is what a review call found (observe.Observer.Reviewed), in the
// review's own words (package review words it), at its level.
type Review struct {
	Level Level
	Text  string
}

func (r Review) Lines(Moment) []Line { return []Line{logText(r.Level, r.Text)} }

// failedWords adds the failed calls to a count of calls: " (3 failed)".
func failedWords(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(" (%d failed)", n)
}

// totalLoops is the stats' loop count: the loops that called the agent.
// A run that found the work already done made none, and says so rather
// than count the loop that only looked.
func totalLoops(m Moment) Line {
	if m.Calls == 0 {
		return logText(Info, "  - Total loops: 0 (no agent call was needed)")
	}
	return logf(Info, "  - Total loops: %d", m.Loop)
}
