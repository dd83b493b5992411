package engine

import (
	"github.com/ralphloop/ralph_loop/analysis"
	"github.com/ralphloop/ralph_loop/events"
	"github.com/ralphloop/ralph_loop/fixplan"
	"github.com/ralphloop/ralph_loop/ralphdir"
)

// fixPlanCounts counts @fix_plan.md's boxes; ok is false without a plan.
func (l *loop) fixPlanCounts() (fixplan.Counts, bool) {
	data, found, err := l.dir.ReadFile(ralphdir.FixPlan)
	if err != nil || !found {
		return fixplan.Counts{}, false
	}
	return fixplan.Count(data), true
}

// collapseStories drops the detail lines of checked stories.
func (l *loop) collapseStories() {
	data, found, err := l.dir.ReadFile(ralphdir.FixPlan)
	if err != nil || !found {
		return
	}
	if out, changed := fixplan.Collapse(data); changed {
		if err := l.dir.WriteFile(ralphdir.FixPlan, out); err != nil {
			l.bus.Note(events.Warning{Err: err})
		}
	}
}

// refreshTasks recounts @fix_plan.md for status.json's tasks_completed
// and tasks_total: the Story lines as bmalph counts them, or every
// checkbox when the plan has no stories.
func (l *loop) refreshTasks() {
	data, found, err := l.dir.ReadFile(ralphdir.FixPlan)
	if err != nil || !found {
		return
	}
	if st := fixplan.CountStories(data); st.Total > 0 {
		l.tasksDone, l.tasksTotal = st.Completed, st.Total
		return
	}
	c := fixplan.Count(data)
	l.tasksDone, l.tasksTotal = c.Checked, c.Total()
}

// applyPlanDelta is enforce_fix_plan_progress_tracking.
func (l *loop) applyPlanDelta(res *analysis.Result, before, after int) {
	tr := fixplan.Track(res.TasksCompletedThisLoop, before, after)
	if res.ApplyFixPlanDelta(after - before) {
		l.bus.Note(events.Logged{Level: events.Warn, Text: tr.Warning()})
	}
}
