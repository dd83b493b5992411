package guard

import "time"

// defaultMaxFailures is MAX_CONSECUTIVE_FAILURES when unset.
const defaultMaxFailures = 5

// Guard counts consecutive failed agent calls and waits out outages. It
// never sleeps: it returns how long the caller should wait. The loop uses
// it from one goroutine only.
type Guard interface {
	// Failure records one failed call. It returns how long to wait before
	// the next call, or giveUp once Max failures came in a row (the wait is
	// then 0). Once given up, every further failure gives up again without
	// counting; only a Success starts over.
	Failure() (backoff time.Duration, giveUp bool)
	// Transient records a transient failure at now: the provider or the
	// way to it failed, not the agent. It does not count toward the
	// consecutive failures. The first one starts an outage, which lasts
	// until a Success. It returns the wait before the next try, or giveUp
	// once the outage has lasted OutageMax (the wait is then 0).
	Transient(now time.Time) (wait time.Duration, giveUp bool)
	// Success records a successful call: the count starts over and an
	// outage is over.
	Success()
	// Consecutive is the number of failures since the last success.
	Consecutive() int
	// Max is the number of failures in a row that makes the guard give up.
	Max() int
	// Outage tells whether an outage is going on: since its first
	// transient failure, with tries transient failures so far.
	Outage() (since time.Time, tries int, on bool)
	// OutageMax is OUTAGE_MAX (0 = no limit).
	OutageMax() time.Duration
}

// New returns a guard that gives up after maxFailures failures in a row
// (MAX_CONSECUTIVE_FAILURES; below 1 means 5) and waits out transient
// failures as withOutage says: backing off up to maxDelay
// (RETRY_MAX_DELAY) for at most outageMax (OUTAGE_MAX).
func New(maxFailures int, maxDelay, outageMax time.Duration) Guard {
	return newGuard(maxFailures).withOutage(maxDelay, outageMax)
}

// guard is the Guard.
type guard struct {
	max   int
	count int // failures since the last success, at most max

	// The outage: transient failures since the last success.
	maxDelay, outageMax time.Duration
	outageSet           bool
	tries               int
	since               time.Time
}

// newGuard returns a guard that gives up after maxFailures failures in a row;
// a value below 1 means defaultMaxFailures.
func newGuard(maxFailures int) *guard {
	if maxFailures < 1 {
		maxFailures = defaultMaxFailures
	}
	return &guard{max: maxFailures}
}

// Failure records one failed call. It returns how long to wait before the
// next call, or giveUp once max failures came in a row (the wait is then
// 0). Once given up, every further failure gives up again without
// counting; only a Success starts over.
func (g *guard) Failure() (backoff time.Duration, giveUp bool) {
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
func (g *guard) Success() { g.count, g.tries, g.since = 0, 0, time.Time{} }

// Consecutive is the number of failures since the last success.
func (g *guard) Consecutive() int { return g.count }

// Max is the number of failures in a row that makes the guard give up.
func (g *guard) Max() int { return g.max }

// failureBackoff is the wait after the n-th failure in a row: 1 s, 2 s, 4 s, …,
// doubling up to 300 s. n < 1 waits 0.
func failureBackoff(n int) time.Duration {
	const maxBackoff = 300 * time.Second
	if n < 1 {
		return 0
	}
	return backoff(n, maxBackoff)
}
