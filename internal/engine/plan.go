package engine

import (
	"github.com/ralphloop/ralph_loop/analysis"
	"github.com/ralphloop/ralph_loop/internal/events"
	"github.com/ralphloop/ralph_loop/internal/fixplan"
	"github.com/ralphloop/ralph_loop/internal/store"
)

// readPlan reads @fix_plan.md and recounts the tasks. The plan is read
// after each agent call (the agent edits it), and before the next one
// only when something may have changed it since (planCopy.fresh):
// everything in between works on what was read.
func (l *loop) readPlan() {
	if l.goal() {
		l.goalPlan() // held in memory
		return
	}
	data, found, err := l.project.Plan()
	l.plan.set(data, found && err == nil)
}

// planForCall makes the plan current for the next agent call: read
// again unless nothing could have changed it since the last read.
func (l *loop) planForCall() {
	if !l.plan.fresh {
		l.readPlan()
	}
	l.plan.stale() // the agent call is next
}

// fixPlanCounts counts the plan's boxes; ok is false without a plan.
func (l *loop) fixPlanCounts() (fixplan.Counts, bool) { return l.plan.counts() }

// collapseStories drops the detail lines of checked stories.
func (l *loop) collapseStories() {
	if !l.plan.found || l.goal() {
		return
	}
	if out, changed := fixplan.Collapse(l.plan.data); changed {
		if err := l.writePlan(out, store.PlanCollapsed); err != nil {
			return
		}
		l.plan.data = out
		l.plan.count()
	}
}

// applyPlanDelta compares the checked boxes the agent claims with the
// plan's own count; a claim that does not match suppresses completion.
func (l *loop) applyPlanDelta(res *analysis.Result, before, after int) {
	if res.ApplyFixPlanDelta(after - before) {
		l.bus.Note(events.Logged{Level: events.Warn, Text: fixplan.MismatchWarning(res.TasksCompletedThisLoop, after-before)})
	}
}
