package supervise

import (
	"sort"
	"sync"
	"testing"
	"time"
)

// manualClock is a clock the test moves with Advance; its timers fire
// only then, so a limit is reached exactly when the test says.
type manualClock struct {
	mu     sync.Mutex
	now    time.Time
	timers []*manualTimer
	armed  chan struct{} // gets a token whenever a timer is armed
}

type manualTimer struct {
	at      time.Time
	f       func()
	stopped bool
}

func newManualClock() *manualClock {
	return &manualClock{now: time.Now(), armed: make(chan struct{}, 1000)}
}

func (c *manualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *manualClock) AfterFunc(d time.Duration, f func()) func() bool {
	c.mu.Lock()
	t := &manualTimer{at: c.now.Add(d), f: f}
	c.timers = append(c.timers, t)
	c.mu.Unlock()
	c.armed <- struct{}{}
	return func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		was := !t.stopped
		t.stopped = true
		return was
	}
}

// pending is the number of timers armed and not yet fired or stopped.
func (c *manualClock) pending() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, t := range c.timers {
		if !t.stopped {
			n++
		}
	}
	return n
}

// awaitPending waits (real time, at most 10 s) until n timers are armed:
// the code under test has reached its waits.
func (c *manualClock) awaitPending(t *testing.T, n int) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for c.pending() < n {
		select {
		case <-c.armed:
		case <-deadline:
			t.Fatalf("%d timers armed after 10 s, want %d", c.pending(), n)
		}
	}
}

// Advance moves the clock by d and calls, in time order, the func of
// every timer that has come due.
func (c *manualClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	var due []*manualTimer
	for _, t := range c.timers {
		if !t.stopped && !t.at.After(c.now) {
			t.stopped = true
			due = append(due, t)
		}
	}
	sort.SliceStable(due, func(i, j int) bool { return due[i].at.Before(due[j].at) })
	c.mu.Unlock()
	for _, t := range due {
		t.f()
	}
}

func TestManualClock(t *testing.T) {
	c := newManualClock()
	start := c.Now()
	var fired []string
	c.AfterFunc(2*time.Second, func() { fired = append(fired, "b") })
	c.AfterFunc(time.Second, func() { fired = append(fired, "a") })
	stop := c.AfterFunc(time.Second, func() { fired = append(fired, "stopped") })
	if !stop() || stop() {
		t.Error("stop: want true, then false")
	}
	c.Advance(1500 * time.Millisecond)
	if len(fired) != 1 || c.pending() != 1 {
		t.Fatalf("after 1.5 s: fired %q, %d pending", fired, c.pending())
	}
	c.Advance(time.Second)
	if len(fired) != 2 || fired[0] != "a" || fired[1] != "b" || c.Now().Sub(start) != 2500*time.Millisecond {
		t.Errorf("fired %q at %s", fired, c.Now().Sub(start))
	}
}
