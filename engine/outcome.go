package engine

// Exit codes of a run, one per kind of ending (README "Exit codes").
const (
	ExitComplete   = 0   // the project is complete (graceful exit, done pattern)
	ExitError      = 1   // usage, configuration or start-up error
	ExitHalted     = 2   // circuit breaker open, permission denial in halt mode
	ExitFailed     = 3   // the agent failed MAX_CONSECUTIVE_FAILURES times in a row
	ExitMaxLoops   = 4   // --max-loops reached
	ExitBudget     = 5   // --max-cost or --max-tokens reached
	ExitIdle       = 6   // idle for longer than IDLE_MAX
	ExitStalled    = 7   // STALL_LIMIT stalled iterations in a row
	ExitUsageLimit = 8   // the user chose to stop at the 5-hour usage limit
	ExitSIGINT     = 130 // stopped by SIGINT
	ExitSIGTERM    = 143 // stopped by SIGTERM
)

// Result is how a run ended.
type Result struct {
	Code       int
	Reason     string // status.json exit_reason
	Action     string // status.json last_action
	Status     string // status.json status
	Message    string // one line for the user
	Err        error  // set for ExitError
	DriverExit *int
}

// StartupError is a start-up check that failed (missing prompt, no git...):
// Lines are printed as ERROR log lines, the run exits 1 and status.json
// says stopped.
type StartupError struct {
	Lines []string
}

func (e *StartupError) Error() string {
	if len(e.Lines) == 0 {
		return "start-up check failed"
	}
	return e.Lines[0]
}
