//go:build unix

package swarm

import (
	"testing"
	"time"
)

// Two workers share one budget: the third call of the hour is refused at
// max 2, and the next hour starts from 0; a usage limit one worker met is
// every worker's, and only a later reset replaces it.
func TestSharedBudget(t *testing.T) {
	dir := t.TempDir()
	a, b := newShared(dir), newShared(dir)
	at := time.Date(2026, 1, 1, 10, 15, 0, 0, time.Local)
	if !a.TakeCall(at, 2) || !b.TakeCall(at, 2) {
		t.Fatal("the first two calls were refused")
	}
	if a.TakeCall(at, 2) || b.TakeCall(at.Add(10*time.Minute), 2) {
		t.Fatal("a third call in the hour went")
	}
	if n := b.calls(at); n != 2 {
		t.Errorf("calls %d", n)
	}
	if !b.TakeCall(at.Add(time.Hour), 2) || a.calls(at.Add(time.Hour)) != 1 {
		t.Error("the next hour did not start from 0")
	}
	reset := at.Add(time.Hour).Truncate(time.Second)
	a.LimitHit("claude-code", reset)
	a.LimitHit("claude-code", reset.Add(-time.Minute))
	if got := b.LimitUntil("claude-code"); !got.Equal(reset) {
		t.Errorf("limit until %s, want %s", got, reset)
	}
	if !b.LimitUntil("codex").IsZero() {
		t.Error("codex limited")
	}
	if FromEnv(func(string) (string, bool) { return "", false }) != nil || FromEnv(func(string) (string, bool) { return "relative", true }) != nil {
		t.Error("a loop outside a swarm got a shared budget")
	}
	if FromEnv(func(string) (string, bool) { return dir, true }) == nil {
		t.Error("a worker got no shared budget")
	}
}
