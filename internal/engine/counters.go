package engine

import (
	"time"

	"github.com/ralphloop/ralph_loop/internal/fixplan"
)

// idleStreak is the run of idle iterations in a row (IDLE_*): how many,
// and when the first of them started.
type idleStreak struct {
	count int
	since time.Time
}

// add counts an idle iteration that started at started.
func (s *idleStreak) add(started time.Time) {
	s.count++
	if s.since.IsZero() {
		s.since = started
	}
}

// end ends the streak: the next idle iteration starts a new one.
func (s *idleStreak) end() { *s = idleStreak{} }

// elapsed is the streak's length at now.
func (s idleStreak) elapsed(now time.Time) time.Duration { return now.Sub(s.since) }

// stallWatch counts the replies in a row that changed nothing (STALL_*):
// the same reply text, HEAD and working tree as the reply before.
type stallWatch struct {
	count int
	last  stallMark
	have  bool // last is a reply's: the next one is compared with it
}

// stallMark is what a reply left: its text, HEAD, and the working tree
// (status and plan).
type stallMark struct{ text, head, tree string }

// see compares a reply's mark with the previous reply's and counts a
// stall when they are the same; stalled reports that it did.
func (w *stallWatch) see(m stallMark) (stalled bool) {
	stalled = w.have && m == w.last
	if stalled {
		w.count++
	} else {
		w.count = 0
	}
	w.last, w.have = m, true
	return stalled
}

// reset forgets the previous reply and ends a run of stalls.
func (w *stallWatch) reset() { w.count, w.have = 0, false }

// planCopy is @fix_plan.md as last read, with status.json's task counts
// of it. It is read before each agent call unless nothing could have
// changed it since the read after the previous call (fresh).
type planCopy struct {
	data  []byte
	found bool
	fresh bool // no wait, gate, review or call since it was read

	done, total int // tasks_completed and tasks_total
}

// set keeps a new read of the plan (data, when found) and recounts it.
func (p *planCopy) set(data []byte, found bool) {
	p.data, p.found, p.fresh = data, found, true
	p.count()
}

// stale marks the copy as one something else may have changed since.
func (p *planCopy) stale() { p.fresh = false }

// counts counts the plan's boxes; ok is false without a plan.
func (p *planCopy) counts() (fixplan.Counts, bool) {
	if !p.found {
		return fixplan.Counts{}, false
	}
	return fixplan.Count(p.data), true
}

// count counts the plan for status.json's tasks_completed and
// tasks_total: the Story lines as bmalph counts them, or every checkbox
// when the plan has no stories. Without a plan the last counts stay.
func (p *planCopy) count() {
	if !p.found {
		return
	}
	p.done, p.total = fixplan.Progress(p.data)
}
