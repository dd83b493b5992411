package events

import (
	"fmt"
	"strings"

	"github.com/ralphloop/ralph_loop/internal/clip"
)

// GateFailure is one failed quality gate, as a person is told of it.
type GateFailure struct {
	Gate     string // TEST_COMMAND, QUALITY_GATES, TESTS_STATUS or VERIFY_COMMAND (a task's check)
	Command  string // the command that failed ("" for TESTS_STATUS)
	ExitCode int
	TimedOut bool // it ran past QUALITY_GATE_TIMEOUT (VERIFY_TIMEOUT for a task's check)
	// Reported: the gate is the agent's own TESTS_STATUS: FAILING, no
	// command of the loop's.
	Reported bool
}

// GateFailed: a quality gate failed (Failure says which and how); Log is
// the file, relative to the project, that holds its whole output ("" when
// none could be written, or for the agent's own TESTS_STATUS).
type GateFailed struct {
	Failure GateFailure
	Log     string
}

// CompletionHeld: the run would have ended as complete (Reason, an exit
// reason such as plan_complete) but a blocking quality gate fails (or, in
// strict mode, a task is open), so the loop goes on and the next call is
// told why.
type CompletionHeld struct {
	Reason   string
	Plan     PlanCount
	Failures []GateFailure
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
	// SetAside: tasks set aside with an unanswered question of the
	// agent's ("- [?]"), counted in neither Done nor Total.
	SetAside int
}

// Evidence is what a completed run rests on: the plan, the quality gates
// as they last ran, and the last commit.
type Evidence struct {
	Plan PlanCount
	// Gates is "" when no gate is configured, else the last run's
	// overall status: "pass" or "fail" (a failure completes only in
	// warn mode).
	Gates    string
	Mode     string        // QUALITY_GATE_MODE
	Failures []GateFailure // the gates that fail
	Log      string        // their whole output, relative to the project
	// Check: a --goal run's check, which passes (its plan is the goal).
	Check string
	// Repo: the repository could be asked; Commits is how many commits
	// the run made, the last of them Commit (abbreviated) and Subject (its
	// subject line, as the repository has it); none: "".
	Repo    bool
	Commits int
	Commit  string
	Subject string
}

// TaskChecked: VERIFY_COMMAND ran for a task the agent ticked. Failure is
// nil when it passed; a failed task was unticked. Log is the file that
// holds the check's whole output ("" when it passed or none was written).
type TaskChecked struct {
	Task    string
	Failure *GateFailure
	Log     string
}

// Lines: the gate, how it failed, and where its whole output is.
func (n GateFailed) Lines() []Line {
	s := "Quality gate failed: " + n.Failure.words()
	if n.Log != "" && !n.Failure.Reported {
		s += "; full output: " + n.Log
	}
	return []Line{logText(Warn, s)}
}

// Lines: whether the task's check passed, and how it failed.
func (n TaskChecked) Lines() []Line {
	if n.Failure == nil {
		return []Line{logf(Success, "✅ Check passed: %q (VERIFY_COMMAND)", flat(n.Task))}
	}
	return []Line{logf(Warn, "❌ Check failed: %q: %s; the task is open again%s", flat(n.Task), n.Failure.words(), logWords(n.Log))}
}

// Lines: what looked done, and what refutes it: open tasks or a failing
// gate.
func (n CompletionHeld) Lines() []Line {
	mode := "QUALITY_GATE_MODE=" + n.Mode
	if n.Strict {
		mode = "COMPLETION_MODE=strict"
	}
	if n.Open > 0 {
		return []Line{logf(Warn, "Not done: %s, but %d of %d tasks in @fix_plan.md are open; going on (%s)",
			claimWords(n.Reason, n.Plan), n.Open, n.Plan.Total, mode)}
	}
	return []Line{logf(Warn, "Not done: %s, but %s; going on (%s)%s",
		claimWords(n.Reason, n.Plan), failuresWords(n.Failures), mode, logWords(n.Log))}
}

// words name a failed gate and how it failed: "TEST_COMMAND `go test
// ./...` exited 1".
func (f GateFailure) words() string {
	switch {
	case f.Reported:
		return "the agent reported TESTS_STATUS: FAILING"
	case f.TimedOut && f.Gate == "VERIFY_COMMAND":
		return fmt.Sprintf("%s `%s` timed out (VERIFY_TIMEOUT)", f.Gate, flat(f.Command))
	case f.TimedOut:
		return fmt.Sprintf("%s `%s` timed out (QUALITY_GATE_TIMEOUT)", f.Gate, flat(f.Command))
	}
	return fmt.Sprintf("%s `%s` exited %d", f.Gate, flat(f.Command), f.ExitCode)
}

// failuresWords: the first failed gate, and how many more.
func failuresWords(fs []GateFailure) string {
	if len(fs) == 0 {
		return "a quality gate fails"
	}
	s := fs[0].words()
	if len(fs) > 1 {
		s += fmt.Sprintf(" (and %d more)", len(fs)-1)
	}
	return s
}

// claimWords: what made the run look complete.
func claimWords(reason string, plan PlanCount) string {
	if plan.Have && plan.Total > 0 && plan.Done == plan.Total {
		return fmt.Sprintf("plan %d/%d ticked", plan.Done, plan.Total)
	}
	return "the agent reported completion (" + reason + ")"
}

func logWords(log string) string {
	if log == "" {
		return ""
	}
	return "; full output: " + log
}

// commitWords says the run's commits: "no commit this run", "1 commit
// this run: abc1234 Add login", "3 commits this run, the last abc1234 …".
func (ev Evidence) commitWords() string {
	c := ev.Commit
	if s := flat(ev.Subject); s != "" {
		c += " " + clip.Ellipsis(s, 60)
	}
	switch {
	case ev.Commits <= 0 || ev.Commit == "":
		return "no commit this run"
	case ev.Commits == 1:
		return "1 commit this run: " + c
	}
	return fmt.Sprintf("%d commits this run, the last %s", ev.Commits, c)
}

// line is the last line of a completed run (reason): the evidence it
// rests on (plan, quality gates, last commit). Gates that fail (warn
// mode) make it a warning.
func (ev Evidence) line(reason string) Line {
	var parts []string
	switch {
	case ev.Check != "":
		parts = append(parts, fmt.Sprintf("the goal's check `%s` passes", flat(ev.Check)))
	case ev.Plan.Have && ev.Plan.Total > 0:
		p := fmt.Sprintf("plan %d/%d", ev.Plan.Done, ev.Plan.Total)
		if n := ev.Plan.SetAside; n > 0 {
			p += fmt.Sprintf(" (%d more set aside with the agent's unanswered question: - [?] in @fix_plan.md)", n)
		}
		parts = append(parts, p)
	default:
		parts = append(parts, "no tasks in @fix_plan.md")
	}
	switch {
	case ev.Check != "" && ev.Gates != "fail":
		// the goal's check is the gate
	case ev.Gates == "":
		parts = append(parts, "no quality gates configured")
	case ev.Gates == "fail":
		parts = append(parts, "quality gates FAILING: "+failuresWords(ev.Failures)+logWords(ev.Log))
	default:
		parts = append(parts, "quality gates passing")
	}
	if ev.Repo {
		parts = append(parts, ev.commitWords())
	}
	if ev.Gates == "fail" {
		return logf(Warn, "⚠️ Completed (%s) with failing quality gates, as QUALITY_GATE_MODE=%s allows: %s", reason, ev.Mode, strings.Join(parts, "; "))
	}
	return logf(Success, "✅ Completed (%s): %s", reason, strings.Join(parts, "; "))
}
