package engine

import (
	"github.com/ralphloop/ralph_loop/internal/gates"
	"github.com/ralphloop/ralph_loop/templates"
)

// --goal TEXT --check CMD: one objective, and the command that decides it
// is met. The plan is one task held in memory (templates.GoalPlan; the
// project's @fix_plan.md is neither read nor written), ticked only when
// CMD passes; the prompt is templates.GoalPrompt (no PROMPT.md needed);
// CMD is TEST_COMMAND in block mode, run before the first call and after
// every call; no call resumes a session; completion is strict
// (config.Config.Strict): a claim of done while CMD fails is refused, and
// a second with nothing changed stops the run. The budgets, the breaker
// and --max-loops bound it as any run.

// goalMet is the reason a --goal run completes with.
const goalMet = "goal_met"

// goal reports whether this is a --goal run.
func (l *loop) goal() bool { return l.s.Goal != "" }

// goalPlan sets the plan of a --goal run: ticked once the check passed.
func (l *loop) goalPlan() {
	l.plan.set(templates.GoalPlan(l.s.Goal, l.goalDone), true)
}

// noteGoal ticks the goal's one task when the check (the gates' run d)
// passed.
func (l *loop) noteGoal(d gates.Decision) {
	if !l.goal() || !d.Ran {
		return
	}
	l.goalDone = d.OverallStatus == gates.StatusPass
	l.goalPlan()
}

// checkGoalFirst runs the check before the first call: a goal already met
// costs no call. stopped is true when the loop was stopped meanwhile.
func (l *loop) checkGoalFirst() (stopped bool) {
	if !l.goal() {
		return false
	}
	_, ok := l.gateRun(gates.Input{Loop: 0, ExitSignal: true, HaveAnalysis: true}, callStamp(l.now(), 0))
	return !ok && l.ctx.Err() != nil
}
