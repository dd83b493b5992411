package guard

import "time"

// defaultMaxFailures is MAX_CONSECUTIVE_FAILURES when unset.
const defaultMaxFailures = 5

// Guard counts consecutive failed agent calls and waits out outages. It
// never sleeps: it returns how long the caller should wait. The loop uses
// it from one goroutine only.
type Guard struct {
	max   int // failures in a row that make it give up
	count int // failures since the last success, at most max

	// The outage: transient failures since the last success.
	maxDelay  time.Duration // RETRY_MAX_DELAY: the longest wait between tries
	outageMax time.Duration // OUTAGE_MAX: how long an outage may last, 0 = no limit
	tries     int           // transient failures so far; 0: no outage
	since     time.Time     // when the first of them came
}

// New returns a guard that gives up after maxFailures failures in a row
// (MAX_CONSECUTIVE_FAILURES; below 1 means 5) and waits out transient
// failures backing off up to maxDelay (RETRY_MAX_DELAY; below 1 means 30
// minutes) for at most outageMax (OUTAGE_MAX; 0 = no limit).
func New(maxFailures int, maxDelay, outageMax time.Duration) *Guard {
	if maxFailures < 1 {
		maxFailures = defaultMaxFailures
	}
	if maxDelay <= 0 {
		maxDelay = defaultRetryMaxDelay
	}
	return &Guard{max: maxFailures, maxDelay: maxDelay, outageMax: max(outageMax, 0)}
}

// Failure records one failed call. It returns how long to wait before the
// next call, or giveUp once Max failures came in a row (the wait is then
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
func (g *Guard) Success() {
	g.count = 0
	g.tries = 0
	g.since = time.Time{}
}

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
