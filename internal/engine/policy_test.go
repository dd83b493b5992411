package engine

import (
	"testing"
	"time"

	"github.com/ralphloop/ralph_loop/drivers"
	"github.com/ralphloop/ralph_loop/internal/config"
	"github.com/ralphloop/ralph_loop/internal/events"
)

// virtualClock is the policy's time in these tests: it moves only when a
// step says so.
type virtualClock struct{ t time.Time }

func (c *virtualClock) now() time.Time { return c.t }

// seen is what a test reads of a decision.
type seen struct {
	then   then
	kind   string        // the wait's kind
	delay  time.Duration // the wait
	tries  int           // the wait's tries
	slot   int           // switchTo
	code   int           // stopRun: the exit code
	reason string        // stopRun: exit_reason
	stop   events.StopKind
	warn   bool // the wait is a usage warning's
}

func seeDecision(d decision) seen {
	s := seen{then: d.then, kind: d.wait.Kind, delay: d.wait.Delay, tries: d.wait.Tries, slot: d.slot, warn: d.wait.Warning}
	if d.then == stopRun {
		s.code, s.reason, s.stop = d.result.Code, d.result.Reason, d.result.Stop.Kind
		if !d.result.condition {
			s.reason += " (not a stop condition)"
		}
	}
	return s
}

var (
	plainFailure = failedCall{failure: events.Failure{Kind: events.CallExited, Code: 1}, detail: "error", agent: "Claude Code", log: ".ralph/logs/e.log"}
	outageCall   = failedCall{failure: events.Failure{Kind: events.CallExited, Code: 1}, detail: "error",
		diagnosis: drivers.Diagnosis{Class: drivers.FailureTransient, Cause: "the provider is overloaded", Said: "529 overloaded"}}
	permanentCall = failedCall{failure: events.Failure{Kind: events.CallExited, Code: 1}, detail: "error",
		diagnosis: drivers.Diagnosis{Class: drivers.FailurePermanent, Cause: "not logged in", Fix: "log in"}}
	diskFull = failedCall{failure: events.Failure{Kind: events.CallNotStored, DiskFull: true}, detail: outcomeDiskFull}
)

// A policy story: settings, then steps, each after a move of the virtual
// clock, with the decision it must come to.
func TestPolicyStories(t *testing.T) {
	fail := func(f failedCall) func(*policy) decision { return func(p *policy) decision { return p.failed(f) } }
	ok := func(p *policy) decision { p.succeeded(); return decision{} }
	type step struct {
		after time.Duration // the clock moves this much first
		do    func(*policy) decision
		want  seen
	}
	backoff := func(d time.Duration, tries int) seen {
		return seen{then: retryAfter, kind: "failure_backoff", delay: d, tries: tries}
	}
	outage := func(d time.Duration, tries int) seen {
		return seen{then: retryAfter, kind: "outage_backoff", delay: d, tries: tries}
	}
	for _, tc := range []struct {
		name  string
		s     config.Config
		steps []step
	}{
		{
			name: "failures back off 1s 2s 4s and the third in a row gives up",
			s:    config.Config{MaxConsecutiveFailures: 3},
			steps: []step{
				{do: fail(plainFailure), want: backoff(time.Second, 1)},
				{after: time.Second, do: fail(plainFailure), want: backoff(2*time.Second, 2)},
				{after: 2 * time.Second, do: fail(plainFailure), want: seen{then: stopRun, code: ExitFailed, reason: "consecutive_failures", stop: events.StopGaveUp}},
			},
		},
		{
			name: "a success starts the count over",
			s:    config.Config{MaxConsecutiveFailures: 2},
			steps: []step{
				{do: fail(plainFailure), want: backoff(time.Second, 1)},
				{do: ok},
				{do: fail(plainFailure), want: backoff(time.Second, 1)},
			},
		},
		{
			name: "MAX_CONSECUTIVE_FAILURES=0 never gives up, and a permanent failure is counted like any",
			s:    config.Config{MaxConsecutiveFailures: 0},
			steps: []step{
				{do: fail(plainFailure), want: backoff(time.Second, 1)},
				{do: fail(permanentCall), want: backoff(2*time.Second, 2)},
			},
		},
		{
			name: "a permanent failure stops at once",
			s:    config.Config{MaxConsecutiveFailures: 5},
			steps: []step{
				{do: fail(permanentCall), want: seen{then: stopRun, code: ExitFailed, reason: "permanent_failure", stop: events.StopPermanent}},
			},
		},
		{
			name: "an output that cannot be stored gives up naming the full disk",
			s:    config.Config{MaxConsecutiveFailures: 1},
			steps: []step{
				{do: fail(diskFull), want: seen{then: stopRun, code: ExitFailed, reason: "disk_full", stop: events.StopNotStored}},
			},
		},
		{
			name: "an outage is not counted, backs off to RETRY_MAX_DELAY and stops at OUTAGE_MAX",
			s:    config.Config{MaxConsecutiveFailures: 1, RetryMaxDelay: 3 * time.Second, OutageMax: 10 * time.Second},
			steps: []step{
				{do: fail(outageCall), want: outage(time.Second, 1)},
				{after: time.Second, do: fail(outageCall), want: outage(2*time.Second, 2)},
				{after: 2 * time.Second, do: fail(outageCall), want: outage(3*time.Second, 3)},
				{after: 3 * time.Second, do: fail(outageCall), want: outage(3*time.Second, 4)},
				// 9 s in: the last wait ends exactly at OUTAGE_MAX.
				{after: 3 * time.Second, do: fail(outageCall), want: outage(time.Second, 5)},
				{after: time.Second, do: fail(outageCall), want: seen{then: stopRun, code: ExitOutage, reason: "provider_outage", stop: events.StopOutage}},
			},
		},
		{
			name: "a success ends the outage",
			s:    config.Config{OutageMax: 10 * time.Second},
			steps: []step{
				{do: fail(outageCall), want: outage(time.Second, 1)},
				{after: 9 * time.Second, do: ok},
				{after: 5 * time.Second, do: fail(outageCall), want: outage(time.Second, 1)},
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clock := &virtualClock{t: time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)}
			p := newPolicy(tc.s, clock.now)
			for i, st := range tc.steps {
				clock.t = clock.t.Add(st.after)
				if got := seeDecision(st.do(p)); got != st.want {
					t.Errorf("step %d: %+v, want %+v", i+1, got, st.want)
				}
			}
		})
	}
}

func TestPolicyOutageStopSaysHowLong(t *testing.T) {
	clock := &virtualClock{t: time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)}
	p := newPolicy(config.Config{OutageMax: time.Minute}, clock.now)
	p.failed(outageCall)
	clock.t = clock.t.Add(90 * time.Second)
	d := p.failed(outageCall)
	st := d.result.Stop
	if st.Outage != 90*time.Second || st.Failures != 2 || st.OutageMax != time.Minute || st.Cause != outageCall.diagnosis.Cause || st.Said != outageCall.diagnosis.Said {
		t.Errorf("stop = %+v", st)
	}
	if d.result.DriverExit == nil || *d.result.DriverExit != 1 {
		t.Errorf("driver exit = %v, want 1", d.result.DriverExit)
	}
}

func TestPolicyTakes(t *testing.T) {
	for _, tc := range []struct {
		max   int
		class drivers.FailureClass
		want  bool
	}{
		{5, drivers.FailureUnknown, false},
		{5, drivers.FailureTransient, true},
		{5, drivers.FailurePermanent, true},
		{0, drivers.FailureTransient, true},
		{0, drivers.FailurePermanent, false}, // never giving up: analysed as a reply
	} {
		p := newPolicy(config.Config{MaxConsecutiveFailures: tc.max}, time.Now)
		if got := p.takes(drivers.Diagnosis{Class: tc.class}); got != tc.want {
			t.Errorf("max %d, class %v: takes = %v, want %v", tc.max, tc.class, got, tc.want)
		}
	}
}

func TestPolicyUsageLimits(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	at := func(d time.Duration) *time.Time { t := t0.Add(d); return &t }
	pct := func(f float64) *float64 { return &f }
	win := func(name string, reset *time.Time) events.UsageWindow {
		return events.UsageWindow{Driver: "claude-code", Window: name, Status: "rejected", ResetsAt: reset}
	}
	for _, tc := range []struct {
		name  string
		s     config.Config
		do    func(*policy) decision
		want  seen
		until time.Time // the wait's end, when it waits
	}{
		{
			name: "a reported reset is waited for, with the margin",
			s:    config.Config{UsageLimitMaxWait: time.Hour},
			do: func(p *policy) decision {
				return p.usageLimited(win("five_hour", at(10*time.Minute)), t0.Add(10*time.Minute).Unix(), "limit")
			},
			want:  seen{then: waitLimit, kind: "usage_limit", delay: 10*time.Minute + resetMargin},
			until: t0.Add(10*time.Minute + resetMargin),
		},
		{
			name:  "no reset reported: an hour",
			do:    func(p *policy) decision { return p.usageLimited(win("", nil), 0, "limit") },
			want:  seen{then: waitLimit, kind: "usage_limit", delay: time.Hour},
			until: t0.Add(time.Hour),
		},
		{
			name: "a reset past USAGE_LIMIT_MAX_WAIT stops the run",
			s:    config.Config{UsageLimitMaxWait: time.Hour},
			do:   func(p *policy) decision { return p.usageLimited(win("seven_day", at(48*time.Hour)), 0, "limit") },
			want: seen{then: stopRun, code: ExitUsageLimit, reason: "usage_limit_max_wait (seven_day resets 2026-03-03T09:00:00Z)", stop: events.StopUsageTooFar},
		},
		{
			name: "USAGE_STOP_PERCENT stops before the call",
			s:    config.Config{UsageStopPercent: 90},
			do: func(p *policy) decision {
				w := win("five_hour", at(time.Hour))
				w.UsedPercent = pct(91)
				return p.usageBefore([]events.UsageWindow{w}, nil)
			},
			want: seen{then: stopRun, code: ExitUsagePace, reason: "usage_stop_percent (five_hour resets 2026-03-01T10:00:00Z)", stop: events.StopUsagePercent},
		},
		{
			name: "a window whose reset has passed no longer counts",
			s:    config.Config{UsageStopPercent: 90},
			do: func(p *policy) decision {
				w := win("five_hour", at(-time.Minute))
				w.UsedPercent = pct(99)
				return p.usageBefore([]events.UsageWindow{w}, nil)
			},
			want: seen{then: proceed},
		},
		{
			name: "a usage warning with USAGE_WARNING_ACTION=stop stops",
			s:    config.Config{UsageWarningAction: "stop"},
			do: func(p *policy) decision {
				w := win("five_hour", at(time.Hour))
				return p.usageBefore(nil, &w)
			},
			want: seen{then: stopRun, code: ExitUsagePace, reason: "usage_warning (five_hour resets 2026-03-01T10:00:00Z)", stop: events.StopUsageWarning},
		},
		{
			name: "a usage warning with USAGE_WARNING_ACTION=wait waits for the reset",
			s:    config.Config{UsageWarningAction: "wait"},
			do: func(p *policy) decision {
				w := win("five_hour", at(time.Hour))
				return p.usageBefore(nil, &w)
			},
			want:  seen{then: waitLimit, kind: "usage_limit", delay: time.Hour + resetMargin, warn: true},
			until: t0.Add(time.Hour + resetMargin),
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clock := &virtualClock{t: t0}
			d := tc.do(newPolicy(tc.s, clock.now))
			if got := seeDecision(d); got != tc.want {
				t.Errorf("%+v, want %+v", got, tc.want)
			}
			if d.then == waitLimit && (!d.wait.Until.Equal(tc.until) || d.wait.Usage == nil) {
				t.Errorf("wait until %v (usage %v), want until %v", d.wait.Until, d.wait.Usage, tc.until)
			}
		})
	}
}

// The fallback as the policy sees it: a limit of the main driver switches
// to the fallback; both limited waits for the earlier reset, naming its
// window; the main driver is back once its reset has passed.
func TestPolicyFallback(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	clock := &virtualClock{t: t0}
	p := newPolicy(config.Config{}, clock.now)
	p.fb = &fallback{slots: [2]agentSlot{{name: "claude-code"}, {name: "codex"}}}
	win := func(driver, name string) events.UsageWindow {
		return events.UsageWindow{Driver: driver, Window: name, Status: "rejected"}
	}

	if slot, _, change := p.nextDriver(); change || slot != 0 {
		t.Fatalf("nothing limited: slot %d, change %v", slot, change)
	}
	mainReset := t0.Add(2 * time.Hour)
	d := p.usageLimited(win("claude-code", "five_hour"), mainReset.Unix(), "limit")
	if got := seeDecision(d); got != (seen{then: switchTo, slot: 1}) {
		t.Fatalf("main limited: %+v, want a switch to the fallback", got)
	}
	slot, why, change := p.nextDriver()
	if !change || slot != 1 || why != events.SwitchUsageLimit {
		t.Fatalf("after the main's limit: slot %d, why %q, change %v", slot, why, change)
	}
	p.fb.active = slot

	// The fallback is limited too, and resets later: wait for the main
	// driver's reset, naming its window.
	clock.t = t0.Add(time.Minute)
	d = p.usageLimited(win("codex", "primary"), t0.Add(5*time.Hour).Unix(), "limit")
	if d.then != waitLimit || d.wait.Usage.Window != "five_hour" || !d.wait.Until.Equal(mainReset.Add(resetMargin)) {
		t.Fatalf("both limited: %+v (usage %+v), want a wait until %v for five_hour", seeDecision(d), d.wait.Usage, mainReset.Add(resetMargin))
	}

	// Past the main driver's reset the calls go back to it.
	clock.t = mainReset.Add(resetMargin)
	slot, why, change = p.nextDriver()
	if !change || slot != 0 || why != events.SwitchUsageLimit {
		t.Errorf("past the main's reset: slot %d, why %q, change %v (the fallback is still limited)", slot, why, change)
	}
	p.fb.active = slot
	clock.t = t0.Add(6 * time.Hour)
	if _, _, change := p.nextDriver(); change {
		t.Errorf("nothing limited on the main driver: no change")
	}

	// A swarm's worker met the main driver's limit: this loop's calls
	// go to the fallback until then.
	p.heardLimits(func(driver string) time.Time {
		if driver == "claude-code" {
			return clock.t.Add(time.Hour)
		}
		return time.Time{}
	})
	if slot, why, change := p.nextDriver(); !change || slot != 1 || why != events.SwitchUsageLimit {
		t.Errorf("after a worker's limit: slot %d, why %q, change %v", slot, why, change)
	}
}
