package engine

import (
	"testing"
	"time"
)

func TestIdleStreak(t *testing.T) {
	t.Parallel()
	var s idleStreak
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	s.add(t0)
	s.add(t0.Add(time.Minute))
	if s.count != 2 || !s.since.Equal(t0) || s.elapsed(t0.Add(3*time.Minute)) != 3*time.Minute {
		t.Errorf("after two idle iterations: %+v", s)
	}
	s.end()
	s.add(t0.Add(time.Hour))
	if s.count != 1 || !s.since.Equal(t0.Add(time.Hour)) {
		t.Errorf("a new streak: %+v", s)
	}
}

func TestStallWatch(t *testing.T) {
	t.Parallel()
	var w stallWatch
	m := stallMark{text: "same", head: "abc", tree: ""}
	if w.see(m) {
		t.Error("the first reply stalled")
	}
	for i := 1; i <= 2; i++ {
		if !w.see(m) || w.count != i {
			t.Errorf("same reply %d after the first: count %d", i, w.count)
		}
	}
	if w.see(stallMark{text: "same", head: "abd"}) || w.count != 0 {
		t.Errorf("a new HEAD is no stall: count %d", w.count)
	}
	w.reset()
	if w.see(stallMark{text: "same", head: "abd"}) {
		t.Error("a reply after a reset stalled")
	}
}

// The plan is read once per iteration: after the call, and before the
// next one only when a wait, a gate or a review may have changed it.
func TestPlanReadOncePerIteration(t *testing.T) {
	t.Parallel()
	p := &MemProject{}
	write := p.SetPlan
	l := &loop{project: p}
	write("- [x] A\n- [ ] B\n")
	l.readPlan() // after a call
	write("- [x] A\n- [x] B\n- [ ] C\n")
	l.planForCall()
	if string(l.plan.data) != "- [x] A\n- [ ] B\n" || l.plan.done != 1 || l.plan.total != 2 {
		t.Errorf("read again though nothing ran since: %q (%d/%d)", l.plan.data, l.plan.done, l.plan.total)
	}
	if l.plan.fresh {
		t.Error("still fresh once the call is next")
	}
	if p.reads != 1 {
		t.Errorf("%d reads of the plan, want 1", p.reads)
	}
	l.readPlan()
	write("- [ ] D\n")
	l.plan.stale() // a wait
	l.planForCall()
	if string(l.plan.data) != "- [ ] D\n" || l.plan.done != 0 || l.plan.total != 1 {
		t.Errorf("not read again after a wait: %q (%d/%d)", l.plan.data, l.plan.done, l.plan.total)
	}
}
