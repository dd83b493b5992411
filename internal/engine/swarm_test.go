package engine_test

import (
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/ralphloop/ralph_loop/internal/engine"
)

// fakeSwarm is the budget a swarm's workers share: calls counted per
// hour against max, and the usage limits the others met.
type fakeSwarm struct {
	mu     sync.Mutex
	taken  map[int]int // hour of the call (since the bubble's start) → calls, all workers
	limits map[string]time.Time
	hits   []string
}

func (f *fakeSwarm) TakeCall(now time.Time, max int) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	h := now.Hour()
	if f.taken[h] >= max {
		return false
	}
	f.taken[h]++
	return true
}

func (f *fakeSwarm) LimitHit(driver string, until time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.hits = append(f.hits, driver)
	f.limits[driver] = until
}

func (f *fakeSwarm) LimitUntil(driver string) time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.limits[driver]
}

// A worker whose swarm already spent this hour's calls waits for the next
// hour before its first call, though its own count is 0; its calls count
// in the shared budget.
func TestSwarmSharedCallBudget(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		h := newCtlHarness(t, false, func(n int) ctlReply { return ctlReply{Text: "Did a task.", Touch: "src/app.txt"} })
		sw := &fakeSwarm{taken: map[int]int{0: 3}, limits: map[string]time.Time{}}
		h.swarm = sw
		start := time.Now()
		r := h.run(h.settings(map[string]string{"LOOP_DELAY": "0", "MAX_LOOPS": "2", "MAX_CALLS_PER_HOUR": "3"}))
		h.checkEnd(r, engine.ExitMaxLoops, "max_loops", "stopped")
		if h.callCount() != 2 {
			t.Errorf("calls %d, want 2", h.callCount())
		}
		if waited := time.Since(start); waited < time.Hour {
			t.Errorf("the first call went after %s; the shared budget was spent until 01:00", waited)
		}
		if sw.taken[1] != 2 {
			t.Errorf("shared calls in the second hour: %d, want 2", sw.taken[1])
		}
		if w := h.rec.waits(); len(w) == 0 || w[0].Kind != "rate_limit" {
			t.Errorf("waits %+v, want a rate_limit wait first", w)
		}
	})
}

// A usage limit another worker met holds this worker back until its reset
// (no call is spent finding out); one this worker meets is told to the
// swarm.
func TestSwarmSharedUsageLimit(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		h := newCtlHarness(t, false, func(n int) ctlReply {
			if n == 1 {
				return claudeLimited(reset0200)
			}
			return ctlReply{Text: "Did a task.", Touch: "src/app.txt"}
		})
		sw := &fakeSwarm{taken: map[int]int{}, limits: map[string]time.Time{"claude-code": time.Unix(reset0030, 0)}}
		h.swarm = sw
		start := time.Now()
		r := h.run(h.settings(map[string]string{"LOOP_DELAY": "0", "MAX_LOOPS": "2"}))
		h.checkEnd(r, engine.ExitMaxLoops, "max_loops", "stopped")
		if got := h.argvs; len(got) == 0 {
			t.Fatal("no call")
		}
		if waited := time.Since(start); waited < 2*time.Hour {
			t.Errorf("the run took %s; it should wait for 00:30 (the swarm's limit), then for 02:00 (its own)", waited)
		}
		if len(sw.hits) != 1 || sw.hits[0] != "claude-code" || !sw.limits["claude-code"].After(time.Unix(reset0200, 0)) {
			t.Errorf("limits told to the swarm: %v %v", sw.hits, sw.limits)
		}
	})
}

// With FALLBACK_DRIVER the swarm's usage limit sends the calls to the
// fallback at once.
func TestSwarmSharedUsageLimitFallback(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		h := newCtlHarness(t, false, func(n int) ctlReply { return codexReply("codex-T1", time.Minute) })
		h.swarm = &fakeSwarm{taken: map[int]int{}, limits: map[string]time.Time{"claude-code": time.Unix(reset0200, 0)}}
		start := time.Now()
		r := h.run(h.settings(map[string]string{"LOOP_DELAY": "0", "MAX_LOOPS": "1", "FALLBACK_DRIVER": "codex"}))
		h.checkEnd(r, engine.ExitMaxLoops, "max_loops", "stopped")
		if len(h.argvs) != 1 || h.argvs[0][0] != "codex" {
			t.Fatalf("calls %q, want one to codex", h.argvs)
		}
		if waited := time.Since(start); waited > 10*time.Minute {
			t.Errorf("the call waited %s", waited)
		}
	})
}
