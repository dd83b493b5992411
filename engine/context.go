package engine

import (
	"github.com/ralphloop/ralph_loop/analysis"
	"github.com/ralphloop/ralph_loop/fixplan"
	"github.com/ralphloop/ralph_loop/gates"
	"github.com/ralphloop/ralph_loop/ralphdir"
	"github.com/ralphloop/ralph_loop/review"
	"github.com/ralphloop/ralph_loop/templates"
)

// loopContext builds the one system-prompt addition for this call.
func (l *loop) loopContext(c *call) string {
	in := templates.ContextInput{
		Loop:           l.n,
		SessionResumed: c.resumed,
		BreakerState:   l.brk.State,
		DiffSummary:    l.lastSummary,
		WriteTimedOut:  l.dir.Exists(ralphdir.WriteHeartbeatTrigger),
		// --no-continue sends no loop state, only review and heartbeat text.
		LoopStateOff: !l.s.SessionContinuity,
	}
	if data, found, _ := l.dir.ReadFile(ralphdir.FixPlan); found {
		counts := fixplan.Count(data)
		in.HaveFixPlan, in.Remaining, in.NextTask = true, counts.Unchecked, fixplan.NextTask(data)
	}
	l.dir.ReadValid(ralphdir.ResponseAnalysis, func(b []byte) error {
		ra, err := analysis.ParseResponseAnalysis(b)
		in.PreviousSummary = ra.Analysis.WorkSummary
		return err
	})
	if res, err := gates.Load(l.dir); err == nil && res != nil {
		in.QualityGateFeedback = gates.Feedback(res)
	}
	if f, found, err := review.Load(l.dir); err == nil && found {
		in.ReviewContext = review.ContextFor(f)
	}
	if in.WriteTimedOut {
		l.dir.Remove(ralphdir.WriteHeartbeatTrigger)
	}
	return templates.LoopContext(in)
}
