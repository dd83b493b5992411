package events

import "github.com/ralphloop/ralph_loop/internal/gates"

// GateFailed: a quality gate failed (Failure says which and how); Log is
// the file, relative to the project, that holds its whole output ("" when
// none could be written, or for the agent's own TESTS_STATUS).
type GateFailed struct {
	Failure gates.Failure
	Log     string
}

// CompletionHeld: the run would have ended as complete (Reason, an exit
// reason such as plan_complete) but a blocking quality gate fails, so the
// loop goes on and the next call is told why.
type CompletionHeld struct {
	Reason   string
	Plan     PlanCount
	Failures []gates.Failure
	Log      string // the failing gates' whole output, relative to the project
	Mode     string // QUALITY_GATE_MODE
	// Strict: COMPLETION_MODE=strict (or --goal) refused it; Open, the
	// plan's open tasks when they did (no gate ran then).
	Strict bool
	Open   int
}

// PlanCount is @fix_plan.md's ticked and total tasks; Have is false
// without a plan.
type PlanCount struct {
	Done, Total int
	Have        bool
}

// Evidence is what a completed run rests on: the plan, the quality gates
// as they last ran, and the last commit.
type Evidence struct {
	Plan PlanCount
	// Gates is "" when no gate is configured, else the last run's
	// overall status: "pass" or "fail" (a failure completes only in
	// warn mode).
	Gates    string
	Mode     string          // QUALITY_GATE_MODE
	Failures []gates.Failure // the gates that fail
	Log      string          // their whole output, relative to the project
	// Check: a --goal run's check, which passes (its plan is the goal).
	Check   string
	Commit  string // HEAD, abbreviated ("" without git)
	Subject string // its subject line, as the repository has it
}

// TaskChecked: VERIFY_COMMAND ran for a task the agent ticked. Failure is
// nil when it passed; a failed task was unticked. Log is the file that
// holds the check's whole output ("" when it passed or none was written).
type TaskChecked struct {
	Task    string
	Failure *gates.Failure
	Log     string
}

func (TaskChecked) notice()    {}
func (GateFailed) notice()     {}
func (CompletionHeld) notice() {}
