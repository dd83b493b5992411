package guard

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/sony/gobreaker/v2"
)

// DefaultMaxFailures is MAX_CONSECUTIVE_FAILURES when unset.
const DefaultMaxFailures = 5

// ExitReason is status.json's exit_reason when the guard stops the loop.
const ExitReason = "consecutive_failures"

// Failure kinds the engine reports.
const (
	KindCrash      = "crash"       // the agent could not start or died on a signal
	KindExit       = "exit"        // non-zero exit code
	KindTimeout    = "timeout"     // CLAUDE_TIMEOUT_MINUTES ran out
	KindUsageLimit = "usage_limit" // the provider's usage limit
	// KindInterrupted is a call the user stopped; it never counts.
	KindInterrupted = "interrupted"
)

// ErrStopped marks a call that ended because the user stopped the loop
// (Ctrl-C, SIGTERM, bmalph stop). Like context.Canceled it never counts
// as a failure.
var ErrStopped = errors.New("stopped by the user")

// ErrGaveUp is the sentinel for "too many failures in a row"; the stop
// error is a *GaveUpError, which matches it with errors.Is.
var ErrGaveUp = errors.New("agent failed too many times in a row")

// Failure is one failed agent call.
type Failure struct {
	Kind   string // one of the Kind constants
	Detail string // e.g. "exit code 1: <last stderr line>"
}

func (f *Failure) Error() string {
	if f.Detail == "" {
		return f.Kind
	}
	return f.Detail
}

// Unwrap lets errors.Is(f, ErrStopped) hold for KindInterrupted.
func (f *Failure) Unwrap() error {
	if f.Kind == KindInterrupted {
		return ErrStopped
	}
	return nil
}

// GaveUpError is the loop's stop error once the guard has tripped.
type GaveUpError struct {
	Count int
	Last  Failure
}

func (e *GaveUpError) Error() string {
	return fmt.Sprintf("agent failed %d times in a row (last: %s); check the agent output and stderr in .ralph/logs/ and the agent's login and network, then run ralph_loop again",
		e.Count, e.Last.Error())
}

// Is makes errors.Is(err, ErrGaveUp) true.
func (e *GaveUpError) Is(target error) bool { return target == ErrGaveUp }

// Guard counts consecutive failed agent calls. It is safe for concurrent
// use, though the loop uses it from one goroutine. It never sleeps: it
// returns how long the caller should wait.
type Guard struct {
	mu      sync.Mutex
	max     int
	cb      *gobreaker.TwoStepCircuitBreaker[struct{}]
	tripped int // consecutive failures when the breaker opened
	last    Failure
}

// New returns a guard that gives up after maxFailures failures in a row;
// a value below 1 means DefaultMaxFailures.
func New(maxFailures int) *Guard {
	if maxFailures < 1 {
		maxFailures = DefaultMaxFailures
	}
	g := &Guard{max: maxFailures}
	g.reset()
	return g
}

// reset starts a fresh breaker. Called with g.mu held (or before g is shared).
func (g *Guard) reset() {
	g.tripped = 0
	g.last = Failure{}
	g.cb = gobreaker.NewTwoStepCircuitBreaker[struct{}](gobreaker.Settings{
		Name: "agent",
		// Counts are never cleared by time, only by a success.
		Interval: 0,
		// Once open the guard stays open: the loop stops. Only Success or
		// Reset close it, so the half-open timer must never fire.
		Timeout: 100 * 365 * 24 * time.Hour,
		ReadyToTrip: func(c gobreaker.Counts) bool {
			if int(c.ConsecutiveFailures) >= g.max {
				g.tripped = int(c.ConsecutiveFailures) // runs under g.mu, inside done()
				return true
			}
			return false
		},
		IsExcluded: func(err error) bool {
			return errors.Is(err, context.Canceled) || errors.Is(err, ErrStopped)
		},
	})
}

// Report records the outcome of one agent call: nil is a success; an
// error wrapping context.Canceled or ErrStopped is ignored; anything else
// is a failure. It returns how long to wait before the next call and
// whether to give up (then the wait is 0 and Err explains why).
func (g *Guard) Report(err error) (backoff time.Duration, giveUp bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.cb.State() == gobreaker.StateOpen {
		if err == nil {
			g.reset() // a success after giving up starts over
			return 0, false
		}
		return 0, true
	}
	done, aerr := g.cb.Allow()
	if aerr != nil {
		return 0, true
	}
	done(err)
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, ErrStopped) {
		return 0, false
	}
	var f *Failure
	if errors.As(err, &f) {
		g.last = *f
	} else {
		g.last = Failure{Kind: KindExit, Detail: err.Error()}
	}
	if g.cb.State() == gobreaker.StateOpen {
		return 0, true
	}
	return Backoff(int(g.cb.Counts().ConsecutiveFailures)), false
}

// Failure records a failed call of the given kind (see the Kind
// constants); detail says what happened, e.g. "exit code 1: auth expired".
// KindInterrupted is ignored.
func (g *Guard) Failure(kind, detail string) (backoff time.Duration, giveUp bool) {
	return g.Report(&Failure{Kind: kind, Detail: detail})
}

// Success records a successful call: the count starts over.
func (g *Guard) Success() { g.Report(nil) }

// Reset forgets every failure.
func (g *Guard) Reset() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.reset()
}

// Consecutive is the number of failures since the last success.
func (g *Guard) Consecutive() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.cb.State() == gobreaker.StateOpen {
		return g.tripped
	}
	return int(g.cb.Counts().ConsecutiveFailures)
}

// Last is the most recent counted failure (zero before the first).
func (g *Guard) Last() Failure {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.last
}

// Err is a *GaveUpError once the guard has given up, else nil.
func (g *Guard) Err() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.cb.State() != gobreaker.StateOpen {
		return nil
	}
	return &GaveUpError{Count: g.tripped, Last: g.last}
}

// Max is the number of failures in a row that makes the guard give up.
func (g *Guard) Max() int { return g.max }

// Backoff is the wait after the n-th failure in a row: 1 s, 2 s, 4 s, …,
// doubling up to 300 s. n < 1 waits 0.
func Backoff(n int) time.Duration {
	const maxBackoff = 300 * time.Second
	if n < 1 {
		return 0
	}
	if n > 9 { // 2^9 s already exceeds the cap
		return maxBackoff
	}
	return min(time.Second<<(n-1), maxBackoff)
}
