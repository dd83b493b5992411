package engine

import (
	"github.com/ralphloop/ralph_loop/analysis"
	"github.com/ralphloop/ralph_loop/internal/supervise"
)

// Every call is counted: in the run (--max-loops, "API calls used",
// status.json's calls_this_run), and a failed one among the run's failed
// calls (failed_calls_this_run, --status, the dashboard, --report) with
// its tokens and cost in the totals and budgets. The hour's window of
// MAX_CALLS_PER_HOUR (.call_count, as the bash loop keeps it) counts a
// call the provider served: every one that succeeded, and a failed one
// that ran until the loop stopped it or reported tokens spent. A call
// refused at once (not logged in, overloaded, at the usage limit) or that
// never started is not in it.

// providerServed reports whether the provider evidently served a failed
// call that ended with reason and reported usage u: it ran until the loop
// stopped it (the timeout, the inactivity limit, the output cap, the write
// heartbeat, a log it could not store) or it reported tokens.
func providerServed(reason supervise.Reason, u *analysis.Usage) bool {
	switch reason {
	case supervise.TimedOut, supervise.Inactive, supervise.OutputTooLarge, supervise.WriteStalled, supervise.WriteFailed:
		return true
	case supervise.Exited:
		return u != nil && u.InputTokens+u.OutputTokens+u.CacheReadTokens+u.CacheCreationTokens > 0
	}
	return false
}

// recordCall counts a call in the hour's window.
func (l *loop) recordCall() {
	l.kept.Window = l.kept.Window.Record(l.now())
	l.save(savedCall)
}

// countFailed counts a failed call among the run's, and in the failed
// calls in a row the next call's line shows.
func (l *loop) countFailed() {
	l.failed++
	l.retry++
}
