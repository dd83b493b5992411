package engine

import "github.com/ralphloop/ralph_loop/events"

// noteStall compares this iteration with the previous one: the same reply
// and no change to git HEAD or the working tree is a stalled iteration.
// The loop's own files under .ralph/ (ralphdir.LoopOwned) are left out of
// `git status --porcelain`, and a commit of nothing else does not count as
// a move of HEAD; the fix plan is also compared by content (an untracked
// plan shows no edit in git).
func (l *loop) noteStall(text string) {
	if l.s.StallLimit <= 0 {
		return
	}
	head, porcel := "", ""
	if l.git.isRepo(l.ctx) {
		// The loop's own files change on every iteration, and an agent
		// may commit them: neither is movement.
		head = l.git.head(l.ctx)
		if l.haveLast && head != l.lastHead && !l.git.committedBeyondOwned(l.ctx, l.lastHead, head) {
			head = l.lastHead
		}
		porcel = l.git.porcelain(l.ctx)
	}
	if l.havePlan {
		porcel += "\x00" + string(l.plan)
	}
	if l.haveLast && text == l.lastText && head == l.lastHead && porcel == l.lastPorcel {
		l.stallCount++
		l.bus.Note(events.Stalled{Count: l.stallCount, Limit: l.s.StallLimit})
	} else {
		l.stallCount = 0
	}
	l.lastText, l.lastHead, l.lastPorcel, l.haveLast = text, head, porcel, true
}

// resetStall forgets the previous reply: an idle iteration is not a
// stalled one and ends a run of them.
func (l *loop) resetStall() {
	l.stallCount, l.haveLast = 0, false
}
