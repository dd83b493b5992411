package engine

import (
	"math"
	"time"

	"github.com/ralphloop/ralph_loop/internal/events"
	"github.com/ralphloop/ralph_loop/internal/ralphdir"
)

// limitReached checks the opt-in stops: --max-loops, --max-cost,
// --max-tokens. They are checked before a call is started, so a budget
// stops the call that would start past it.
func (l *loop) limitReached() (Result, bool) {
	if l.s.MaxLoops > 0 && l.calls >= l.s.MaxLoops {
		return l.stopping(Result{Code: ExitMaxLoops, Action: "max_loops_reached", Status: "stopped", Reason: "max_loops",
			Stop: events.Stop{Kind: events.StopMaxLoops, Calls: l.calls, Limit: l.s.MaxLoops}}), true
	}
	if l.s.MaxCostUSD > 0 && l.totals.CostUSD >= l.s.MaxCostUSD {
		return l.stopping(Result{Code: ExitBudget, Action: "budget_exhausted", Status: "stopped", Reason: "max_cost",
			Stop: events.Stop{Kind: events.StopMaxCost, Spent: l.totals.CostUSD, Budget: l.s.MaxCostUSD}}), true
	}
	if l.s.MaxTokens > 0 && l.totals.Tokens() >= l.s.MaxTokens {
		return l.stopping(Result{Code: ExitBudget, Action: "budget_exhausted", Status: "stopped", Reason: "max_tokens",
			Stop: events.Stop{Kind: events.StopMaxTokens, Tokens: l.totals.Tokens(), TokenLimit: l.s.MaxTokens}}), true
	}
	return Result{}, false
}

// stopping marks r as the end a stop condition made (the console says
// which when the run's end is reported).
func (l *loop) stopping(r Result) Result {
	r.condition = true
	return r
}

// paused reports whether the project is paused (ralph_loop --pause).
func paused(d *ralphdir.Dir) bool { return d.Exists(ralphdir.PauseFile) }

// pausePoll is how often a paused loop looks for --resume.
var pausePoll = time.Second

// pauseGate waits while the project is paused.
func (l *loop) pauseGate() (Result, bool) {
	if !paused(l.dir) {
		return Result{}, false
	}
	l.bus.WaitStarted(l.at("paused", "paused"), events.Wait{Kind: events.WaitPause})
	for paused(l.dir) {
		select {
		case <-l.ctx.Done():
			return l.signalExit(), true
		case <-time.After(pausePoll):
		}
	}
	l.readPlan() // it may have been edited during the pause
	l.bus.WaitEnded(l.at("resumed", "running"), events.Wait{Kind: events.WaitPause})
	return Result{}, false
}

// idleEnabled: the idle marker only changes anything with IDLE_* set.
func (l *loop) idleEnabled() bool { return l.s.IdleDelay > 0 || l.s.IdleMax > 0 }

// idleWait is the wait after the n-th consecutive idle iteration:
// delay × backoff^(n−1), capped at max (when max > 0).
func idleWait(delay time.Duration, backoff float64, max time.Duration, n int) time.Duration {
	if n < 1 {
		n = 1
	}
	if backoff < 1 {
		backoff = 1
	}
	w := float64(delay) * math.Pow(backoff, float64(n-1))
	if max > 0 && w > float64(max) {
		return max
	}
	if w > float64(math.MaxInt64/2) {
		return time.Duration(math.MaxInt64 / 2)
	}
	return time.Duration(w)
}

// afterIteration: stall and idle stops, then the pause before the next
// loop (idle backoff instead of LOOP_DELAY after an idle iteration).
func (l *loop) afterIteration() (Result, bool) {
	if l.s.StallLimit > 0 && l.stall.count >= l.s.StallLimit {
		return l.stopping(Result{Code: ExitStalled, Action: "stalled", Status: "halted", Reason: "stalled",
			Stop: events.Stop{Kind: events.StopStalled, Calls: l.stall.count, Limit: l.s.StallLimit}}), true
	}
	if l.idle.count > 0 && l.idleEnabled() {
		if l.s.IdleMax > 0 && l.idle.elapsed(l.now()) >= l.s.IdleMax {
			return l.stopping(Result{Code: ExitIdle, Action: "idle_timeout", Status: "stopped", Reason: "idle_timeout",
				Stop: events.Stop{Kind: events.StopIdle, Idle: l.idle.elapsed(l.now()), IdleMax: l.s.IdleMax}}), true
		}
		if l.s.IdleDelay > 0 {
			d := idleWait(l.s.IdleDelay, l.s.IdleBackoff, l.s.IdleMaxDelay, l.idle.count)
			if l.s.IdleMax > 0 {
				if left := l.s.IdleMax - l.idle.elapsed(l.now()); left < d {
					d = left
				}
			}
			if _, err := l.wait("idle_backoff", d); err != nil {
				return l.signalExit(), true
			}
			return Result{}, false
		}
	}
	if _, err := l.wait("loop_delay", l.s.LoopDelay); err != nil {
		return l.signalExit(), true
	}
	return Result{}, false
}
