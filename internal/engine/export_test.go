package engine

// The exit codes, for the tests (README's "Exit codes" table is the
// contract; TestExitCodesDocumented checks it).
const (
	ExitComplete   = exitComplete
	ExitError      = exitError
	ExitHalted     = exitHalted
	ExitFailed     = exitFailed
	ExitMaxLoops   = exitMaxLoops
	ExitBudget     = exitBudget
	ExitIdle       = exitIdle
	ExitStalled    = exitStalled
	ExitUsageLimit = exitUsageLimit
	ExitUsagePace  = exitUsagePace
	ExitOutage     = exitOutage
	ExitUnproven   = exitUnproven
	ExitSIGHUP     = exitSIGHUP
	ExitSIGINT     = exitSIGINT
	ExitSIGQUIT    = exitSIGQUIT
	ExitSIGTERM    = exitSIGTERM
)

// Waits the tests check.
var IdleWait = idleWait

const SkipWindow = skipWindow
