package engine

import (
	"slices"
	"time"

	"github.com/ralphloop/ralph_loop/analysis"
	"github.com/ralphloop/ralph_loop/internal/events"
)

// usageState is what the agent CLIs said of the provider's usage windows:
// the latest report of each window of each driver, and a usage warning
// still to act on (USAGE_WARNING_ACTION wait or stop).
type usageState struct {
	windows []events.UsageWindow
	warning *events.UsageWindow
}

// known is the latest usage of every window reported so far (nil: none).
func (u *usageState) known() []events.UsageWindow {
	if len(u.windows) == 0 {
		return nil
	}
	return slices.Clone(u.windows)
}

// put records w as the latest report of its window and says whether
// anything but its time changed.
func (u *usageState) put(w events.UsageWindow) bool {
	for i, old := range u.windows {
		if old.Driver == w.Driver && old.Window == w.Window {
			u.windows[i] = w
			old.UpdatedAt = w.UpdatedAt
			return !sameWindow(old, w)
		}
	}
	u.windows = append(u.windows, w)
	return true
}

// lifted marks the rejected windows of driver that a call which was not
// limited did not report again as allowed: the call went through, so the
// limit is over (a CLI that reports only when limited never says so).
func (u *usageState) lifted(driver string, reported []analysis.LimitWindow, now time.Time) bool {
	changed := false
	for i, w := range u.windows {
		if w.Driver != driver || w.Status != analysis.LimitRejected || slices.ContainsFunc(reported, func(r analysis.LimitWindow) bool {
			return r.Window == w.Window || (r.Window == "" && w.Window == "unknown")
		}) {
			continue
		}
		u.windows[i].Status, u.windows[i].UpdatedAt = analysis.LimitAllowed, now
		changed = true
	}
	return changed
}

func sameWindow(a, b events.UsageWindow) bool {
	samePct := (a.UsedPercent == nil) == (b.UsedPercent == nil) && (a.UsedPercent == nil || *a.UsedPercent == *b.UsedPercent)
	sameReset := (a.ResetsAt == nil) == (b.ResetsAt == nil) && (a.ResetsAt == nil || a.ResetsAt.Equal(*b.ResetsAt))
	a.UsedPercent, b.UsedPercent, a.ResetsAt, b.ResetsAt = nil, nil, nil, nil
	return samePct && sameReset && a == b
}

// usageWindow is the events' view of a window one call reported.
func (l *loop) usageWindow(w analysis.LimitWindow) events.UsageWindow {
	e := events.UsageWindow{Driver: l.s.Driver, Window: w.Window, Status: w.Status, WindowMinutes: w.WindowMinutes, UpdatedAt: l.now()}
	if e.Window == "" {
		e.Window = "unknown"
	}
	if w.UsedPercent != nil {
		p := *w.UsedPercent
		e.UsedPercent = &p
	}
	if w.ResetsAt > 0 {
		t := time.Unix(w.ResetsAt, 0).In(l.now().Location())
		e.ResetsAt = &t
	}
	return e
}

// noteUsage takes in what one call said of the usage windows: each
// window's latest report (a limit the CLI only worded counts as a
// rejected report of the window it named), usage_updated when that
// changed what is known, and the warning to act on before the next call.
func (l *loop) noteUsage(res analysis.Result) {
	reported := res.UsageWindows
	if res.UsageLimited && !slices.ContainsFunc(reported, func(w analysis.LimitWindow) bool { return w.Status == analysis.LimitRejected }) {
		reported = append(slices.Clone(reported), res.Limit())
	}
	changed := false
	for _, w := range reported {
		if l.usage.put(l.usageWindow(w)) {
			changed = true
		}
	}
	if !res.UsageLimited && l.usage.lifted(l.s.Driver, reported, l.now()) {
		changed = true
	}
	if w, ok := res.Warning(); ok && !res.UsageLimited && l.s.UsageWarningAction != "" && l.s.UsageWarningAction != "continue" {
		ew := l.usageWindow(w)
		l.usage.warning = &ew
	}
	if changed {
		l.bus.UsageChanged(l.at("", ""))
	}
}

// The usage-limit wait, which the fallback follows too (it goes back to
// the main driver when the wait would have ended): a reported reset plus
// resetMargin, else limitDefault from the limit, as the bash loop waits.
const (
	resetMargin  = 5 * time.Second
	limitDefault = time.Hour
)

// usageWait is the wait for a usage limit that resets at resetsAt (zero
// when not reported: an hour, as the bash loop waits), and whether the
// reset is within maxWait (0: no cap). A reset further away is not waited
// for: the run stops instead.
func usageWait(now, resetsAt time.Time, maxWait time.Duration) (wait time.Duration, within bool) {
	wait = limitDefault
	if !resetsAt.IsZero() && resetsAt.After(now) {
		wait = resetsAt.Sub(now) + resetMargin
		return wait, maxWait <= 0 || resetsAt.Sub(now) <= maxWait
	}
	return wait, maxWait <= 0 || wait <= maxWait
}

// resetOf is a window's reset time, zero when not reported.
func resetOf(w events.UsageWindow) time.Time {
	if w.ResetsAt == nil {
		return time.Time{}
	}
	return *w.ResetsAt
}

// waitForLimit waits out a usage limit as the policy decided (w: the
// wait, until its reset). After a call (w.Warning false) a terminal is
// asked whether to wait or stop, as the bash loop asks; an unattended run
// never exits on a limit it can wait for. The failure guard does not
// count it: waiting it out is the remedy.
func (l *loop) waitForLimit(w events.Wait) step {
	action := "api_limit"
	if w.Warning {
		action = "usage_warning"
	}
	wait, until := w.Delay, w.Until
	l.bus.LimitHit(l.at(action, "paused"), w)
	if !w.Warning && l.deps.Interactive && l.deps.Stdin != nil {
		limited := *w.Usage
		if l.askExit(limited) {
			return stopWith(Result{Code: ExitUsageLimit, Action: "api_limit_exit", Status: "stopped", Reason: chosenStop(limited),
				Stop: events.Stop{Kind: events.StopUsageLimit, Usage: limited}})
		}
		if l.ctx.Err() != nil { // stopped at the question: no wait to announce
			return stopWith(l.signalExit())
		}
		// The time the question took is part of the wait: the next call
		// comes at the until already reported, not 30 s after it.
		wait = max(until.Sub(l.now()), 0)
	}
	l.bus.Note(events.UsageLimitWait{Wait: wait, Until: until})
	if _, err := l.wait("usage_limit", wait); err != nil {
		return stopWith(l.signalExit())
	}
	// The wait ends at the until said, and the next call starts then: a
	// limited call is not "Completed", and the loop delay is not waited
	// again on top (a wait before a call, usageGate, goes on the same).
	return backedOff
}

// usageGate runs before each call: the policy stops the run once a
// window's known use reaches USAGE_STOP_PERCENT, and stops or waits on a
// usage warning (USAGE_WARNING_ACTION), which is acted on once.
func (l *loop) usageGate() (Result, bool) {
	d := l.policy.usageBefore(l.usage.windows, l.usage.warning)
	l.usage.warning = nil
	s := l.act(d)
	return s.result, s.stop
}

// askExit asks, as the bash loop does, whether to wait for the limit of
// window limited or to stop, and reads one answer (30 s).
func (l *loop) askExit(limited events.UsageWindow) bool {
	l.bus.Note(events.UsageLimitQuestion{Usage: limited})
	if l.answers == nil {
		l.answers = newAnswers(l.deps.Stdin)
	}
	a, answered := l.answers.next(l.ctx, 30*time.Second)
	if !answered && l.ctx.Err() == nil {
		l.bus.Note(events.UsageLimitNoAnswer)
	}
	return a == "2"
}

// chosenStop is the exit_reason of a stop the person chose at the usage
// limit of window w: the bash loop's api_5hour_limit for the five_hour
// window it means, usage_limit with the window and its reset for any other
// (docs/COMPATIBILITY.md), "usage_limit (window unknown, reset time
// unknown)" when the CLI named neither.
func chosenStop(w events.UsageWindow) string {
	if w.Window == "five_hour" {
		return "api_5hour_limit"
	}
	return usageReason("usage_limit", w)
}

// usageReason is the exit_reason of a stop at a usage window: the stop's
// name, then the window and its reset time (RFC 3339, UTC) in brackets,
// "usage_limit_max_wait (seven_day resets 2026-03-01T09:00:00Z)", or
// "(window unknown, reset time unknown)" for what the CLI did not say.
func usageReason(name string, w events.UsageWindow) string {
	win := w.Window
	if !w.Named() {
		win = "window unknown"
	}
	if w.ResetsAt == nil {
		return name + " (" + win + ", reset time unknown)"
	}
	return name + " (" + win + " resets " + w.ResetsAt.UTC().Format(time.RFC3339) + ")"
}
