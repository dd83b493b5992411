// Package guard stops the loop after repeated infrastructure failures of
// the agent call — a crash, a non-zero exit, a timeout, output that could
// not be stored — and tells the engine how long to back off between them.
//
// These failures never reach package breaker: they say nothing about
// whether the agent is making progress on the work. The bash loop means
// to wait and retry after a failed call but, because of set -e, exits on
// the first one; the guard implements the retry with an exponential
// backoff (1 s, 2 s, 4 s, … capped at 300 s) and gives up after
// MAX_CONSECUTIVE_FAILURES failures in a row (default 5). A successful
// call resets the count. A call the user stopped is not reported at all.
// Transient failures (the provider overloaded or unreachable) are not
// counted: they back off up to RETRY_MAX_DELAY (default 30 min) and give
// up once the outage has lasted OUTAGE_MAX (default 6 h); a success ends
// the outage. See docs/COMPATIBILITY.md.
//
// The guard is a plain counter: it never sleeps and has no clock of its
// own; the engine waits the returned backoff (in its cancellable wait)
// and words the give-up message itself.
//
//	g := guard.New(cfg.MaxConsecutiveFailures, cfg.RetryMaxDelay, cfg.OutageMax)
//	backoff, giveUp := g.Failure()
//	if giveUp { stop with g.Consecutive() failures }
//	wait(ctx, backoff)
//	...
//	g.Success()
//
// Nothing is persisted: a new run starts with a clean count.
package guard
