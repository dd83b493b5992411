// Package guard stops the loop after repeated infrastructure failures of
// the agent call — a crash, a non-zero exit, a timeout, a usage limit —
// and tells the engine how long to back off between them.
//
// These failures never reach package breaker: they say nothing about
// whether the agent is making progress on the work. The bash reference
// means to wait and retry after a failed call but, because of set -e,
// exits on the first one; the guard implements the retry with an
// exponential backoff (1 s, 2 s, 4 s, … capped at 300 s) and gives up
// after MAX_CONSECUTIVE_FAILURES failures in a row (default 5) with its
// own exit reason, ExitReason. A successful call resets the count. A call
// the user stopped (context.Canceled, ErrStopped, KindInterrupted) is not
// counted at all.
//
// Counting and tripping use sony/gobreaker's TwoStepCircuitBreaker
// (ReadyToTrip at ConsecutiveFailures >= max, IsExcluded for user stops).
// The guard never sleeps and has no clock of its own: the engine waits
// the returned backoff (in its cancellable wait).
//
//	g := guard.New(cfg.MaxConsecutiveFailures)
//	backoff, giveUp := g.Failure(guard.KindExit, "exit code 1: auth expired")
//	if giveUp { return g.Err() } // *GaveUpError, errors.Is(err, guard.ErrGaveUp)
//	wait(ctx, backoff)
//	...
//	g.Success()
//
// API: New, (*Guard).Failure, Report (takes an error: nil = success),
// Success, Reset, Consecutive, Last, Err, Max; Backoff; Failure,
// GaveUpError, ErrGaveUp, ErrStopped, ExitReason, the Kind constants.
// Nothing is persisted: a new run starts with a clean count.
package guard
