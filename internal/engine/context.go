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
		BreakerState:   l.brk.State,
		DiffSummary:    l.lastSummary,
		WriteTimedOut:  l.writeTimedOut,
		// --no-continue sends no loop state, only review and heartbeat text.
		LoopStateOff: !l.s.SessionContinuity,
	}
	if l.plan.found {
		counts := fixplan.Count(l.plan.data)
		in.HaveFixPlan, in.Remaining, in.NextTask = true, counts.Unchecked, fixplan.NextTask(l.plan.data)
	}
	if l.lastAnalysis != nil {
		in.PreviousSummary = l.lastAnalysis.Analysis.WorkSummary
	}
	if l.gateResults != nil {
		in.QualityGateFeedback = gates.Feedback(l.gateResults)
	}
	in.Held, l.gate.held = l.gate.held, nil // once: a later hold sets it again
	in.TaskChecks, l.tasks.failed = l.tasks.failed, nil
	if l.findings != nil {
		in.ReviewContext = review.ContextFor(*l.findings)
	}
	if in.WriteTimedOut {
		l.writeTimedOut = false
		l.keep.WriteTimeoutChanged(time.Time{})
	}
	return templates.LoopContext(in)
}
