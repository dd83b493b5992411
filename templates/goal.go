package templates

import "fmt"

// GoalPlan is the one-task plan of a --goal run, held in memory (the
// project's @fix_plan.md is neither read nor written): open until the
// check passes.
func GoalPlan(goal string, met bool) []byte {
	box := " "
	if met {
		box = "x"
	}
	return fmt.Appendf(nil, "# Goal\n- [%s] %s\n", box, oneLine(goal))
}

// GoalPrompt is the prompt of every call of a --goal run, in place of
// PROMPT.md: the objective, the command that decides it is met, and what
// to report.
func GoalPrompt(goal, check string) string {
	return fmt.Sprintf(`# Goal

%s

After each of your turns the loop runs this command in the project folder:

    %s

The goal is met when it exits 0, and only then; nothing you say ends the run. Each call starts
with a fresh context: read the code and the git log to see what earlier calls did, then take the
next step towards the goal. Commit your work with a message that says what you did.

End your reply with this block:

---RALPH_STATUS---
STATUS: IN_PROGRESS | COMPLETE | BLOCKED
TASKS_COMPLETED_THIS_LOOP: 0
FILES_MODIFIED: <number>
TESTS_STATUS: PASSING | FAILING | NOT_RUN
WORK_TYPE: IMPLEMENTATION | TESTING | DOCUMENTATION | REFACTORING
EXIT_SIGNAL: false | true
RECOMMENDATION: <one line>
---END_RALPH_STATUS---
`, goal, check)
}
