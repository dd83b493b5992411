package engine

import (
	"math"
	"time"

	"github.com/ralphloop/ralph_loop/drivers"
	"github.com/ralphloop/ralph_loop/internal/config"
	"github.com/ralphloop/ralph_loop/internal/events"
	"github.com/ralphloop/ralph_loop/internal/guard"
)

// policy decides what the loop does when a call fails or meets its
// provider's usage limit, and before a call when the usage it knows of
// stops or holds the run:
//
//   - a failed call is counted (MAX_CONSECUTIVE_FAILURES): the loop backs
//     off 1 s, 2 s, 4 s, … and gives up at the limit (never with 0);
//   - a transient failure (the driver's error patterns: the provider
//     overloaded or unreachable) is an outage, not counted: it is ridden
//     out backing off up to RETRY_MAX_DELAY until it has lasted OUTAGE_MAX;
//   - a permanent failure (a setup no retry helps) stops the run at once,
//     unless MAX_CONSECUTIVE_FAILURES=0 asks never to stop;
//   - a usage limit is waited for until its reset (plus a margin; an hour
//     when the CLI said none), unless the reset is past
//     USAGE_LIMIT_MAX_WAIT, which stops the run; USAGE_STOP_PERCENT and
//     USAGE_WARNING_ACTION stop or wait before a call;
//   - with FALLBACK_DRIVER, a limit of one driver switches the calls to the
//     other; when both are limited the loop waits for the earlier reset,
//     and the calls go back to the main driver once its limit is over.
//
// It keeps its own state (the guard's failures in a row and outage, the
// fallback's slots and their resets), reads the time through now (the
// engine's Deps.Now) and never waits, reports or stops anything itself:
// each method returns a decision the iteration acts on (act).
type policy struct {
	now       func() time.Time
	guard     *guard.Guard
	maxWait   time.Duration // USAGE_LIMIT_MAX_WAIT (0: no cap)
	stopAt    float64       // USAGE_STOP_PERCENT (0: off)
	onWarning string        // USAGE_WARNING_ACTION: continue, wait, stop
	fb        *fallback     // FALLBACK_DRIVER (set at start-up); nil: none
}

// newPolicy is the policy of a run with settings s, its time read from now.
func newPolicy(s config.Config, now func() time.Time) *policy {
	maxFailures := s.MaxConsecutiveFailures
	if maxFailures <= 0 {
		maxFailures = math.MaxInt32 // MAX_CONSECUTIVE_FAILURES=0: never give up
	}
	return &policy{
		now:       now,
		guard:     guard.New(maxFailures, s.RetryMaxDelay, s.OutageMax),
		maxWait:   s.UsageLimitMaxWait,
		stopAt:    s.UsageStopPercent,
		onWarning: s.UsageWarningAction,
	}
}

// then is what a decision asks of the loop.
type then int

const (
	proceed    then = iota // go on, as after any call (the loop delay, then the next call)
	retryAfter             // wait out decision.wait (a backoff), then the next call
	waitLimit              // wait for a usage limit's reset (decision.wait, until Until)
	switchTo               // the next call goes to the other driver (decision.slot)
	stopRun                // end the run with decision.result
)

// decision is the policy's answer: retry after a backoff, wait until a
// limit resets, switch to the fallback, stop with a result, or go on.
type decision struct {
	then   then
	wait   events.Wait // retryAfter, waitLimit: the wait as it is reported
	slot   int         // switchTo: the fallback's slot the calls go to
	result Result      // stopRun: how the run ends
}

// stopDecision ends the run with r, a stop condition's end.
func stopDecision(r Result) decision {
	r.condition = true
	return decision{then: stopRun, result: r}
}

// failedCall is a failed call as the policy weighs it.
type failedCall struct {
	failure   events.Failure    // how it ended
	detail    string            // its outcome's detail: error, timeout, no_request, disk_full, …
	diagnosis drivers.Diagnosis // what its words said, by the driver's error patterns (FailureUnknown: nothing known)
	agent     string            // its CLI, as the stop names it
	log       string            // its stderr log, as the stop names it
}

// neverGiveUp: MAX_CONSECUTIVE_FAILURES=0, never stop on failures.
func (p *policy) neverGiveUp() bool { return p.guard.Max() >= math.MaxInt32 }

// takes reports whether a reply that exited 0 yet is an error with
// diagnosis d is a failure the policy acts on (an outage, or a permanent
// failure that stops the run), rather than a reply to analyse.
func (p *policy) takes(d drivers.Diagnosis) bool {
	return d.Class == drivers.FailureTransient || d.Class == drivers.FailurePermanent && !p.neverGiveUp()
}

// failed decides after a failed call f: a permanent failure stops the run
// (unless it never gives up), a transient one rides the outage out, and
// any other is counted: back off, or give up after MAX_CONSECUTIVE_FAILURES
// in a row.
func (p *policy) failed(f failedCall) decision {
	switch f.diagnosis.Class {
	case drivers.FailurePermanent:
		if !p.neverGiveUp() {
			d := f.diagnosis
			return stopDecision(Result{Code: ExitFailed, Action: "failed", Status: "error", Reason: "permanent_failure", DriverExit: new(f.failure.Code),
				Stop: events.Stop{Kind: events.StopPermanent, Agent: f.agent, Cause: d.Cause, Fix: d.Fix, Said: d.Said, Last: f.failure, Log: f.log}})
		}
	case drivers.FailureTransient:
		return p.outage(f)
	}
	backoff, giveUp := p.guard.Failure()
	if giveUp {
		n := p.guard.Consecutive()
		stop := events.Stop{Kind: events.StopGaveUp, Agent: f.agent, Failures: n, Last: f.failure, Log: f.log}
		if f.failure.Kind == events.CallNotStored {
			stop = events.Stop{Kind: events.StopNotStored, Failures: n, Err: f.failure.Err, DiskFull: f.failure.DiskFull}
		}
		return stopDecision(Result{Code: ExitFailed, Action: "failed", Status: "error", Reason: giveUpReason(f.detail), DriverExit: new(f.failure.Code), Stop: stop})
	}
	return decision{then: retryAfter, wait: events.Wait{Kind: "failure_backoff", Delay: backoff, Tries: p.guard.Consecutive(), MaxTries: p.guard.Max()}}
}

// outage rides out a transient failure f: back off and try again, or stop
// once the outage has lasted OUTAGE_MAX.
func (p *policy) outage(f failedCall) decision {
	now, d := p.now(), f.diagnosis
	wait, giveUp := p.guard.Transient(now)
	since, tries, _ := p.guard.Outage()
	lasted := now.Sub(since)
	if giveUp {
		return stopDecision(Result{Code: ExitOutage, Action: "failed", Status: "error", Reason: "provider_outage", DriverExit: new(f.failure.Code),
			Stop: events.Stop{Kind: events.StopOutage, Agent: f.agent, Failures: tries, Outage: lasted, OutageMax: p.guard.OutageMax(),
				Cause: d.Cause, Said: d.Said, Last: f.failure}})
	}
	return decision{then: retryAfter, wait: events.Wait{Kind: "outage_backoff", Delay: wait, Tries: tries,
		Cause: d.Cause, Said: d.Said, Lasted: lasted, OutageMax: p.guard.OutageMax()}}
}

// succeeded takes a call that succeeded: the failures in a row start over
// and an outage is over.
func (p *policy) succeeded() { p.guard.Success() }

// usageLimited decides after a call the provider's usage limit stopped:
// limited is the window it named, resetsAt the reset it reported (unix
// seconds, 0: none), reason the limit's words. With a fallback the calls
// switch to the driver that is not limited, or, when both are, the loop
// waits for the earlier reset, naming its window; without one it waits
// for limited's reset (limitWait).
func (p *policy) usageLimited(limited events.UsageWindow, resetsAt int64, reason string) decision {
	if p.fb != nil {
		now := p.now()
		cur := &p.fb.slots[p.fb.active]
		cur.reset, cur.limit = limitReset(resetsAt, now), limited
		other := p.fb.slots[1-p.fb.active]
		if !now.Before(other.until()) {
			return decision{then: switchTo, slot: 1 - p.fb.active}
		}
		// The wait is for whichever driver resets first, and names its
		// window; a reset within the margin ends the wait just after it.
		first := *cur
		if other.reset < cur.reset {
			first = other
		}
		reset := time.Unix(max(first.reset, now.Unix()+1), 0).In(now.Location())
		limited = first.limit
		limited.ResetsAt = &reset
	}
	return p.limitWait(limited, reason)
}

// limitWait waits for the usage limit of window w (reason: why it is
// met), or stops the run when its reset is past USAGE_LIMIT_MAX_WAIT.
func (p *policy) limitWait(w events.UsageWindow, reason string) decision {
	now := p.now()
	wait, within := usageWait(now, resetOf(w), p.maxWait)
	if !within {
		return p.tooFar(w)
	}
	return decision{then: waitLimit, wait: events.Wait{Kind: "usage_limit", Delay: wait, Until: now.Add(wait), Reason: reason, Usage: &w}}
}

// tooFar stops the run at a usage limit whose reset is past
// USAGE_LIMIT_MAX_WAIT.
func (p *policy) tooFar(w events.UsageWindow) decision {
	return stopDecision(Result{Code: ExitUsageLimit, Action: "api_limit_exit", Status: "stopped",
		Reason: usageReason("usage_limit_max_wait", w),
		Stop:   events.Stop{Kind: events.StopUsageTooFar, Usage: w, MaxWait: p.maxWait}})
}

// usageBefore decides before a call from what the CLIs said of the usage
// windows: stop once a window's known use reaches USAGE_STOP_PERCENT (a
// window whose reset has passed no longer counts), and act on a usage
// warning (nil: none) as USAGE_WARNING_ACTION says, stop or wait.
func (p *policy) usageBefore(windows []events.UsageWindow, warning *events.UsageWindow) decision {
	now := p.now()
	if p.stopAt > 0 {
		for _, w := range windows {
			if w.UsedPercent == nil || *w.UsedPercent < p.stopAt || (w.ResetsAt != nil && !w.ResetsAt.After(now)) {
				continue
			}
			return stopDecision(Result{Code: ExitUsagePace, Action: "usage_stop", Status: "stopped",
				Reason: usageReason("usage_stop_percent", w),
				Stop:   events.Stop{Kind: events.StopUsagePercent, Usage: w, StopPercent: p.stopAt}})
		}
	}
	if warning == nil {
		return decision{}
	}
	w := *warning
	if p.onWarning == "stop" {
		return stopDecision(Result{Code: ExitUsagePace, Action: "usage_stop", Status: "stopped",
			Reason: usageReason("usage_warning", w),
			Stop:   events.Stop{Kind: events.StopUsageWarning, Usage: w}})
	}
	d := p.limitWait(w, usageReason("usage_warning", w))
	d.wait.Warning = d.then == waitLimit
	return d
}

// nextDriver is the fallback's choice of the next call's driver: the
// main one (slot 0), unless it is at its usage limit and the fallback is
// not. change: it is not the active one, and why (events.SwitchUsageLimit
// or events.SwitchReset) the calls move.
func (p *policy) nextDriver() (slot int, why string, change bool) {
	if p.fb == nil {
		return 0, "", false
	}
	now := p.now()
	want := 0
	if now.Before(p.fb.slots[0].until()) && !now.Before(p.fb.slots[1].until()) {
		want = 1
	}
	if want == p.fb.active {
		return want, "", false
	}
	why = events.SwitchReset
	if now.Before(p.fb.slots[p.fb.active].until()) {
		why = events.SwitchUsageLimit
	}
	return want, why, true
}

// heardLimits takes the limits the workers of a swarm met (until: when
// driver's limit is over, zero when none): a later one than a slot knows
// becomes its reset.
func (p *policy) heardLimits(until func(driver string) time.Time) {
	if p.fb == nil {
		return
	}
	for i := range p.fb.slots {
		slot := &p.fb.slots[i]
		if u := until(slot.name); u.After(slot.until()) {
			slot.reset = u.Add(-resetMargin).Unix()
		}
	}
}

// onFallback reports whether the calls go to the fallback driver.
func (p *policy) onFallback() bool { return p.fb != nil && p.fb.active == 1 }
