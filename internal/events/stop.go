package events

import (
	"time"

	"github.com/ralphloop/ralph_loop/internal/supervise"
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
)

// Stop is how a run ended early, as values: the console words it for the
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

// Failure is how one agent call failed.
type Failure struct {
	// Reason is how the call ended: supervise.TimedOut, Inactive,
	// StartFailed, OutputTooLarge, WriteFailed, or Exited for a call that
	// exited on its own, with a code other than 0 or with 0 but an API
	// error (is_error) reported in its result.
	Reason     supervise.Reason
	Code       int           // the call's exit code
	Inactivity time.Duration // Inactive: the inactivity timeout
	MaxMB      int64         // OutputTooLarge: MAX_OUTPUT_MB
	// Err is why the call could not start (StartFailed) or the writer's
	// error (WriteFailed); DiskFull, for WriteFailed: the disk or the
	// quota is full, which changes the remedy shown.
	Err      error
	DiskFull bool
	// NoRequest: the call exited 0, but its reply did nothing: it
	// answered as if it had been given no prompt.
	NoRequest bool
}
