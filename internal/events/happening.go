package events

import "time"

// Moment is what every report of the run's lifecycle carries: when it
// happened, in which run, the run's state then (so a surface renders
// itself from the last report alone) and, for status.json, what the loop
// is doing (Action, its last_action) and bmalph's status value. An empty
// Status leaves status.json as it is.
type Moment struct {
	TS    time.Time
	RunID string
	Snapshot
	Action, Status string
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
	// Failure is why a failed call failed; Reason is its words (the
	// fan fills them) or, without a Failure, nothing.
	Failure *Failure
	Reason  string
	// DriverExitCode is status.json's driver_exit_code, set when the
	// call's end sets it.
	DriverExitCode *int
	// Idle, on an idle call (IterationIdle), is the idle calls in a row.
	Idle int
	// Agent, on a failed call, is the agent's name as shown ("Claude
	// Code"); StderrTail is the end of its stderr (its last lines, on one
	// line, "" for none) and StderrLog the file that holds the whole of
	// it. The console says them with the failure.
	Agent                 string
	StderrTail, StderrLog string
	// Limit, on a call its provider's usage limit stopped, is the window
	// that hit it, as far as the CLI told it.
	Limit *UsageWindow
	// BreakerOpened: the circuit breaker opened on the call's result and
	// halts the run.
	BreakerOpened bool
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
	// Quota, on the usage governor's wait (Kind WaitUsageSoft), is the
	// threshold reached and the window's reading.
	Quota *QuotaHold
	// Why a back-off waits, said as it starts. Tries: a failure_backoff's
	// failed calls in a row, of the MaxTries that stop the run
	// (math.MaxInt32 or more: no limit, MAX_CONSECUTIVE_FAILURES=0); an
	// outage_backoff's failed tries so far. The outage's Cause, from the
	// agent's line Said; it has lasted Lasted and stops the run once it
	// lasts OutageMax (0: never, OUTAGE_MAX=0).
	Tries, MaxTries   int
	Cause, Said       string
	Lasted, OutageMax time.Duration
	// Question, on a wait of kind WaitQuestion, is the agent's question
	// and, as the wait ends, what came of it.
	Question *Question
}

// WaitPause is the Kind of the wait while the project is paused.
const WaitPause = "pause"

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
	// Stop is how a run ended early, nil otherwise; Message is its
	// words (the fan fills them). Condition: a stop condition (a limit, a
	// stall, the failure guard, an outage...) ended it, which the console
	// says.
	Stop      *Stop
	Message   string
	Condition bool
	// Evidence, on a completed run, is what the completion rests on.
	Evidence *Evidence
}
