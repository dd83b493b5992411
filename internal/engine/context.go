package engine

import (
	"time"

	"github.com/ralphloop/ralph_loop/internal/fixplan"
	"github.com/ralphloop/ralph_loop/internal/gates"
	"github.com/ralphloop/ralph_loop/internal/review"
	"github.com/ralphloop/ralph_loop/templates"
)

// loopContext builds the one system-prompt addition for this call.
func (l *loop) loopContext(c *call) string {
	in := templates.ContextInput{
		Loop:           l.n,
		SessionResumed: c.resumed,
		BreakerState:   l.kept.Breaker.State,
		WriteTimedOut:  !l.kept.WriteTimeout.IsZero(),
		// --no-continue sends no loop state, only review and heartbeat text.
		LoopStateOff: !l.s.SessionContinuity,
	}
	if l.plan.found {
		counts := fixplan.Count(l.plan.data)
		in.HaveFixPlan, in.Remaining, in.NextTask = true, counts.Unchecked, fixplan.NextTask(l.plan.data)
	}
	// "Previous:" and "Changed:" are this run's notes from loop to loop:
	// a run's first loop gets none, though the last run's may still be on
	// disk (they say nothing of what changed between the runs; a resumed
	// session is the agent's own memory of that work).
	if l.n > 1 {
		in.DiffSummary = l.lastSummary
		if l.kept.Analysis != nil {
			in.PreviousSummary = l.kept.Analysis.Analysis.WorkSummary
		}
	}
	if l.kept.Gates != nil {
		in.QualityGateFeedback = gates.Feedback(l.kept.Gates)
	}
	in.Held, l.gate.held = l.gate.held, nil // once: a later hold sets it again
	in.TaskChecks, l.tasks.failed = l.tasks.failed, nil
	in.Asked = l.askedContext()
	if l.kept.Findings != nil {
		in.ReviewContext = review.ContextFor(*l.kept.Findings)
	}
	if in.WriteTimedOut {
		l.kept.WriteTimeout = time.Time{} // the mark reached its call
	}
	return withTask(templates.LoopContext(in), l.taskBrief)
}
