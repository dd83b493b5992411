package engine

import (
	"github.com/ralphloop/ralph_loop/analysis"
	"github.com/ralphloop/ralph_loop/internal/events"
	"github.com/ralphloop/ralph_loop/internal/fixplan"
	"github.com/ralphloop/ralph_loop/internal/ralphdir"
)

// readPlan reads @fix_plan.md and recounts the tasks. The plan is read
// once before each agent call and once after it (the agent edits it);
// everything in between works on what was read.
func (l *loop) readPlan() {
	data, found, err := l.dir.ReadFile(ralphdir.FixPlan)
	l.plan, l.havePlan = data, found && err == nil
	l.countTasks()
}

// fixPlanCounts counts the plan's boxes; ok is false without a plan.
func (l *loop) fixPlanCounts() (fixplan.Counts, bool) {
	if !l.havePlan {
		return fixplan.Counts{}, false
	}
	return fixplan.Count(l.plan), true
}

// collapseStories drops the detail lines of checked stories.
func (l *loop) collapseStories() {
	if !l.havePlan {
		return
	}
	if out, changed := fixplan.Collapse(l.plan); changed {
		if err := l.bus.PlanCollapsed(out); err != nil {
			return
		}
		l.plan = out
		l.countTasks()
	}
}

// countTasks counts the plan for status.json's tasks_completed and
// tasks_total: the Story lines as bmalph counts them, or every checkbox
// when the plan has no stories. Without a plan the last counts stay.
func (l *loop) countTasks() {
	if !l.havePlan {
		return
	}
	if st := fixplan.CountStories(l.plan); st.Total > 0 {
		l.tasksDone, l.tasksTotal = st.Completed, st.Total
		return
	}
	c := fixplan.Count(l.plan)
	l.tasksDone, l.tasksTotal = c.Checked, c.Total()
}

// applyPlanDelta compares the checked boxes the agent claims with the
// plan's own count; a claim that does not match suppresses completion.
func (l *loop) applyPlanDelta(res *analysis.Result, before, after int) {
	tr := fixplan.Track(res.TasksCompletedThisLoop, before, after)
	if res.ApplyFixPlanDelta(after - before) {
		l.bus.Note(events.Logged{Level: events.Warn, Text: tr.Warning()})
	}
}
