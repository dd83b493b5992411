package engine

import (
	"context"
	"slices"
	"time"

	"github.com/ralphloop/ralph_loop/analysis"
	"github.com/ralphloop/ralph_loop/internal/events"
	"github.com/ralphloop/ralph_loop/internal/quota"
)

// Quota is the machine's usage ledger, for the usage governor
// (docs/USAGE-LIMITS.md; ledger.Governor in production): what every loop
// on the machine spent of the account a driver's calls use, and what the
// CLIs (or the person's probe) said of its windows. Deps.Quota nil: the
// governor is off and nothing here runs.
type Quota interface {
	// Look is what is known now of the windows of driver's account.
	Look(ctx context.Context, driver string, now time.Time) []quota.Reading
	// Record adds one call of driver (its tokens, the windows it
	// reported) and returns the account's windows after it.
	Record(driver string, now time.Time, tokens int64, reports []quota.Report) []quota.Reading
	// Claim reports whether this run is the one (of all on the machine)
	// to tell of the projection key of window.
	Claim(driver, window, key string, now time.Time) bool
	// Ledger is the ledger's file, "" when none could be used.
	Ledger() string
}

// quotaGate is the usage governor before a call: from the machine's
// ledger, a window at a hard threshold stops the run (exit 9), one at a
// soft threshold (or at the reserve) holds the calls until it resets —
// a wait with the countdown, pause and Ctrl+C skip of every wait, capped
// by USAGE_LIMIT_MAX_WAIT as every usage wait is. A skipped wait lets the
// call go. again: the loop waited and starts the iteration over.
func (l *loop) quotaGate() (r Result, stop, again bool) {
	q := l.deps.Quota
	if q == nil {
		return Result{}, false, false
	}
	now := l.now()
	v := quota.Decide(l.s.UsagePolicy(), q.Look(l.ctx, l.s.Driver, now))
	if v.Kind == 0 {
		return Result{}, false, false
	}
	hold := events.QuotaHold{Rule: v.Rule, Reading: v.Reading, Reserve: l.s.UsageReserve, Ledger: q.Ledger()}
	w := hold.Window(l.s.Driver)
	if v.Kind == quota.Hard {
		name := "usage_limits"
		if v.Rule.From == quota.FromStop {
			name = "usage_stop_percent"
		}
		return l.stopping(Result{Code: ExitUsagePace, Action: "usage_stop", Status: "stopped", Reason: usageReason(name, w),
			Stop: events.Stop{Kind: events.StopUsageHard, Usage: w, StopPercent: v.Rule.Percent, Hold: &hold}}), true, false
	}
	wait, within := usageWait(now, resetOf(w), l.s.UsageLimitMaxWait)
	if !within { // as any usage wait: never for days
		return l.stopping(Result{Code: ExitUsageLimit, Action: "api_limit_exit", Status: "stopped", Reason: usageReason("usage_limit_max_wait", w),
			Stop: events.Stop{Kind: events.StopUsageTooFar, Usage: w, MaxWait: l.s.UsageLimitMaxWait, Hold: &hold}}), true, false
	}
	l.bus.LimitHit(l.at(events.WaitUsageSoft, "paused"), events.Wait{Kind: events.WaitUsageSoft, Delay: wait, Until: now.Add(wait),
		Reason: usageReason(events.WaitUsageSoft, w), Usage: &w, Quota: &hold})
	skipped, err := l.wait(events.WaitUsageSoft, wait)
	switch {
	case err != nil:
		return l.signalExit(), true, false
	case skipped:
		return Result{}, false, false // the person let the call go
	}
	return Result{}, false, true
}

// quotaRecord tells the ledger of a call (review calls too): its tokens
// and the windows it reported (a limit the CLI only worded counts as a
// rejected report of the window it named, as noteUsage takes it); then
// tells of a projection that reaches a threshold before its window
// resets, when no loop on the machine told of it yet.
func (l *loop) quotaRecord(res analysis.Result) {
	q := l.deps.Quota
	if q == nil {
		return
	}
	var tokens int64
	if u := usageOf(res.Usage); u != nil {
		tokens = u.Tokens()
	}
	windows := res.UsageWindows
	if res.UsageLimited && !slices.ContainsFunc(windows, func(w analysis.LimitWindow) bool { return w.Status == analysis.LimitRejected }) {
		windows = append(windows[:len(windows):len(windows)], res.Limit())
	}
	reports := make([]quota.Report, 0, len(windows))
	for _, w := range windows {
		r := quota.Report{Window: w.Window, Status: w.Status, Used: w.UsedPercent, Minutes: w.WindowMinutes}
		if w.ResetsAt > 0 {
			r.ResetsAt = time.Unix(w.ResetsAt, 0)
		}
		reports = append(reports, r)
	}
	now := l.now()
	policy := l.s.UsagePolicy()
	for _, r := range q.Record(l.s.Driver, now, tokens, reports) {
		c, ok := r.Crossing(policy)
		if ok && q.Claim(l.s.Driver, r.Window, c.Key(r), now) {
			l.bus.UsageProjected(l.at("", ""), events.ProjectionOf(r, c))
		}
	}
}
