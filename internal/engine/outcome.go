package engine

import (
	"github.com/ralphloop/ralph_loop/internal/events"
	"github.com/ralphloop/ralph_loop/internal/ralphdir"
)

// Exit codes of a run, one per kind of ending: the documented contract of
// README's "Exit codes" table, which scripts and bmalph act on
// (TestExitCodesDocumented holds the two together). Result.Code is one of
// them.
const (
	ExitComplete   = 0   // the project is complete (graceful exit, done pattern)
	ExitError      = 1   // usage, configuration or start-up error
	ExitHalted     = 2   // circuit breaker open, permission denial in halt mode
	ExitFailed     = 3   // the agent failed MAX_CONSECUTIVE_FAILURES times in a row
	ExitMaxLoops   = 4   // --max-loops reached
	ExitBudget     = 5   // --max-cost or --max-tokens reached
	ExitIdle       = 6   // idle for longer than IDLE_MAX
	ExitStalled    = 7   // STALL_LIMIT stalled iterations in a row
	ExitUsageLimit = 8   // stopped at a usage limit: the person chose to, or its reset is past USAGE_LIMIT_MAX_WAIT
	ExitUsagePace  = 9   // stopped before the usage limit: USAGE_STOP_PERCENT reached, or a usage warning with USAGE_WARNING_ACTION=stop
	ExitOutage     = 10  // a provider outage (transient failures in a row) lasted OUTAGE_MAX
	ExitUnproven   = 12  // COMPLETION_MODE=strict: the agent claimed done again with nothing changed and nothing proven
	ExitUnanswered = 13  // nobody answered the agent's question within ASK_TIMEOUT, with ASK_TIMEOUT_ACTION=stop
	ExitSIGHUP     = 129 // stopped by SIGHUP
	ExitSIGINT     = 130 // stopped by SIGINT
	ExitSIGQUIT    = 131 // stopped by SIGQUIT (Ctrl+\)
	ExitSIGTERM    = 143 // stopped by SIGTERM
)

// Result is how a run ended.
type Result struct {
	Code       int
	Reason     string      // status.json exit_reason
	Action     string      // status.json last_action
	Status     string      // status.json status
	Stop       events.Stop // why the run stopped early, as values (StopNone when complete)
	Err        error       // set for ExitError
	DriverExit *int
	Told       bool             // the stop's line was the run's first (an open breaker at start): no closing line repeats it
	evidence   *events.Evidence // a completed run: what the completion rests on
	condition  bool             // a stop condition ended the run (stopping)
}

// StartupError is a start-up check that failed (missing prompt, no git...):
// the run notes Failed (ERROR lines on the console), exits 1 and
// status.json says stopped.
type StartupError struct {
	Failed events.StartupFailed
}

func startupFailed(f events.StartupFailed) *StartupError { return &StartupError{Failed: f} }

func (e *StartupError) Error() string {
	if e.Failed.Err != nil {
		return e.Failed.Err.Error()
	}
	return "start-up check failed: " + e.Failed.Check.String()
}

// Failure details (events' iteration outcome, the failure guard's kind) of
// the endings that are not the agent's own doing.
const (
	outcomeTooLarge    = "output_too_large" // MAX_OUTPUT_MB passed
	outcomeWriteFailed = "write_failed"     // a log could not be written
	outcomeDiskFull    = "disk_full"        // ... because the disk is full
)

// writeFailure is the failure detail of a call whose output could not be
// stored: disk_full when the disk (or the quota) is full.
func writeFailure(err error) string {
	if ralphdir.NoSpace(err) {
		return outcomeDiskFull
	}
	return outcomeWriteFailed
}

// notStored is the notice that the agent's output could not be stored
// (err), naming a full disk, whose remedy differs.
func notStored(err error) events.OutputNotStored {
	return events.OutputNotStored{Err: err, DiskFull: ralphdir.NoSpace(err)}
}

// giveUpReason is status.json's exit_reason when the failure guard stops
// the loop after a failure of the given detail: a full disk or an
// unwritable .ralph/ is named, anything else is consecutive_failures.
func giveUpReason(detail string) string {
	switch detail {
	case outcomeDiskFull, outcomeWriteFailed:
		return detail
	}
	return "consecutive_failures"
}
