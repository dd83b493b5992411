package engine

import "github.com/ralphloop/ralph_loop/internal/events"

// noteStall compares this iteration with the previous one: the same reply
// and no change to git HEAD or the working tree is a stalled iteration.
// Any move of HEAD is a change: an agent that commits is not stalled,
// whatever it committed (the breaker, which counts only the project's
// files, still sees a loop that committed nothing else as no progress).
// The loop's own files under .ralph/ (ralphdir.LoopOwned) are left out of
// `git status --porcelain`; the fix plan is also compared by content (an
// untracked plan shows no edit in git).
func (l *loop) noteStall(text string) {
	if l.s.StallLimit <= 0 {
		return
	}
	head, porcel := "", ""
	switch {
	case l.tree.have:
		// The mark the call's change was measured with: the working
		// tree's content beyond HEAD, the loop's own files left out.
		head, porcel = l.git.Commit(l.ctx), l.tree.mark
	case l.git.InRepository(l.ctx):
		// The loop's own files change on every iteration: an edit of
		// them alone is no movement.
		head = l.git.Commit(l.ctx)
		porcel = l.git.Uncommitted(l.ctx)
	}
	if l.plan.found {
		porcel += "\x00" + string(l.plan.data)
	}
	if l.stall.see(stallMark{text: text, head: head, tree: porcel}) {
		l.bus.Note(events.Stalled{Count: l.stall.count, Limit: l.s.StallLimit})
	}
}

// resetStall forgets the previous reply: an idle iteration is not a
// stalled one and ends a run of them.
func (l *loop) resetStall() {
	l.stall.reset()
}
