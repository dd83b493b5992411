package engine

import (
	"context"
	"time"

	"github.com/ralphloop/ralph_loop/internal/events"
)

// Tasks is the trackers' side of the plan (TASK_SOURCES, docs/TASKS.md):
// beads and GitHub issues written into sections of @fix_plan.md that it
// owns. The engine asks it once before each call, tells it once after a
// call whose reply was analysed, and once as the run ends; it reports
// what each step says happened. A loop without trackers has none
// (Deps.Tasks nil) and is unchanged.
type Tasks interface {
	// Next syncs the trackers into the plan and claims the item the next
	// call works on; brief is the block the call's context gets about
	// that item ("" when the next task is no tracker's).
	Next(ctx context.Context) (brief string, news []events.Task)
	// Done: the call of loop ticked these tasks (their text without the
	// box); green says its quality gates passed, or none is configured;
	// commit is HEAD's short id.
	Done(ctx context.Context, loop int, ticked []string, green bool, commit string) []events.Task
	// End: the run ends; green says it ended complete with its gates
	// passing. ctx is not the loop's (which a stop has canceled).
	End(ctx context.Context, loop int, green bool, commit string) []events.Task
}

// stopRelease is how long a run stopped by a signal gives the trackers to
// take back its claims.
const stopRelease = 5 * time.Second

// tasksBefore runs before each call: the trackers are synced into the
// plan (which is read again), the next task's item claimed, and its
// block kept for the call's context.
func (l *loop) tasksBefore() {
	if l.deps.Tasks == nil {
		return
	}
	brief, news := l.deps.Tasks.Next(l.ctx)
	l.tracked(news)
	l.taskBrief = brief
	l.plan.stale()
}

// tasksAfter runs after a call's reply was analysed and its gates ran:
// the tasks it ticked are the trackers' to write back once the gates
// pass.
func (l *loop) tasksAfter(c *call, gate gateResult) {
	if l.deps.Tasks == nil {
		return
	}
	green := !l.gatesConfig().Enabled() || gate.Code != nil && len(l.gate.failures) == 0
	l.tracked(l.deps.Tasks.Done(l.ctx, l.n, c.ticked, green, l.shortHead()))
}

// tasksEnd runs as the run ends: what is done and verified is written
// back, and every claim of the run given back.
func (l *loop) tasksEnd(r Result) {
	if l.deps.Tasks == nil {
		return
	}
	green := r.Code == ExitComplete && len(l.gate.failures) == 0
	ctx := context.WithoutCancel(l.ctx)
	if l.ctx.Err() != nil {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, stopRelease)
		defer cancel()
	}
	l.tracked(l.deps.Tasks.End(ctx, l.n, green, l.shortHead()))
}

// tracked reports what a tracker step says happened.
func (l *loop) tracked(news []events.Task) {
	for _, t := range news {
		l.bus.Tracked(l.at("", ""), t)
	}
}

// shortHead is HEAD's short commit id, "" when there is none.
func (l *loop) shortHead() string {
	id, _, ok := l.git.LastCommit(context.WithoutCancel(l.ctx))
	if !ok {
		return ""
	}
	return id[:min(len(id), 12)]
}

// withTask is the call's context with the tracker item's block after it.
func withTask(ctxText, brief string) string {
	switch {
	case brief == "":
		return ctxText
	case ctxText == "":
		return brief
	}
	return ctxText + "\n\n" + brief
}
