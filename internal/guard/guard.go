package guard

import "time"

// defaultMaxFailures is MAX_CONSECUTIVE_FAILURES when unset.
const defaultMaxFailures = 5

// Guard counts consecutive failed agent calls. It never sleeps: it
// returns how long the caller should wait. The loop uses it from one
// goroutine only.
type Guard struct {
	max   int
	count int // failures since the last success, at most max

	// The outage: transient failures since the last success.
	maxDelay, outageMax time.Duration
	outageSet           bool
	tries               int
	since               time.Time
}

// New returns a guard that gives up after maxFailures failures in a row;
// a value below 1 means defaultMaxFailures.
func New(maxFailures int) *Guard {
	if maxFailures < 1 {
		maxFailures = defaultMaxFailures
	}
	return &Guard{max: maxFailures}
}

// Failure records one failed call. It returns how long to wait before the
// next call, or giveUp once max failures came in a row (the wait is then
// 0). Once given up, every further failure gives up again without
// counting; only a Success starts over.
func (g *Guard) Failure() (backoff time.Duration, giveUp bool) {
	if g.count >= g.max {
		return 0, true
	}
	g.count++
	if g.count >= g.max {
		return 0, true
	}
	return failureBackoff(g.count), false
}

// Success records a successful call: the count starts over and an
// outage is over.
func (g *Guard) Success() { g.count, g.tries, g.since = 0, 0, time.Time{} }

// Consecutive is the number of failures since the last success.
func (g *Guard) Consecutive() int { return g.count }

// Max is the number of failures in a row that makes the guard give up.
func (g *Guard) Max() int { return g.max }

// failureBackoff is the wait after the n-th failure in a row: 1 s, 2 s, 4 s, …,
// doubling up to 300 s. n < 1 waits 0.
func failureBackoff(n int) time.Duration {
	const maxBackoff = 300 * time.Second
	if n < 1 {
		return 0
	}
	return backoff(n, maxBackoff)
}
