package engine

// Progress is change since the previous loop: a loop made progress when
// HEAD moved by a commit that changes something beyond the loop's own
// files, when the working tree's content (tracked and untracked, the
// loop's own files left out: Repo.Mark) differs from where the
// previous loop left it, or when the plan gained ticks. An uncommitted
// edit left by an earlier loop is no progress in every later one, however
// many files `git diff` lists.

// treeWatch is the working tree's mark at the end of the previous loop,
// the base the next loop's change is measured from.
type treeWatch struct {
	mark string
	have bool // mark is known
	// stale: something other than the agent may have changed the tree
	// since mark was taken (a quality gate, a verify command): take a new
	// base before the next call.
	stale bool
}

// loopChange is what one agent call changed.
type loopChange struct {
	known     bool // the tree's marks could be taken; false: fall back on git's diff count
	committed bool // HEAD moved by a commit that changes more than the loop's own files
	tree      bool // the working tree's mark differs from the previous loop's end
	ticks     int  // boxes the plan gained
}

// changed reports whether the call changed the project. Without the
// tree's marks (git could not tell), the files git's diff counted decide,
// as they always did.
func (c loopChange) changed(files int) bool {
	if !c.known {
		return files > 0 || c.committed || c.ticks > 0
	}
	return c.committed || c.tree || c.ticks > 0
}

// progressFiles is the files-changed figure the breaker gets for a loop:
// git's count when the loop changed something (at least 1, as a new
// untracked file is a change git's diff does not count), else 0.
func progressFiles(files int, changed bool) int {
	switch {
	case !changed:
		return 0
	case files == 0:
		return 1
	}
	return files
}

// markBase takes the tree's mark the coming call is measured from, when
// there is none yet or something since may have changed the tree.
func (l *loop) markBase() {
	if l.tree.have && !l.tree.stale {
		return
	}
	l.tree.mark, l.tree.have = l.git.Mark(l.ctx)
	l.tree.stale = false
}

// measureChange is what call c changed: its commits, the working tree
// against the base taken before it (c.base), and the plan's ticks (before
// and after: its checked boxes). The new mark is the next loop's base.
func (l *loop) measureChange(c *call, before, after int) loopChange {
	mark, ok := l.git.Mark(l.ctx)
	return l.changeTo(c, before, after, mark, ok)
}

// changeTo is measureChange with the tree's mark already taken.
func (l *loop) changeTo(c *call, before, after int, mark string, ok bool) loopChange {
	ch := loopChange{ticks: max(after-before, 0)}
	if head := l.git.Commit(l.ctx); c.startSHA != "" && head != "" && head != c.startSHA {
		ch.committed = l.git.WorkCommitted(l.ctx, c.startSHA, head)
	}
	ch.known = ok && c.base.have
	ch.tree = ch.known && mark != c.base.mark
	l.tree.mark, l.tree.have, l.tree.stale = mark, ok, false
	return ch
}
