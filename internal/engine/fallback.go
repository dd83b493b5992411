package engine

import (
	"time"

	"github.com/ralphloop/ralph_loop/drivers"
	"github.com/ralphloop/ralph_loop/internal/events"
	"github.com/ralphloop/ralph_loop/internal/store"
)

// agentSlot is one agent CLI the loop can call: its driver, where it is,
// the version its install or its output said (installedVersion,
// agentVersion), whether its output can still be streamed live, and its
// last usage limit: the window and its reset (unix seconds, 0 = none).
type agentSlot struct {
	name    string
	drv     drivers.Driver
	path    string // where the start-up check found it
	version string
	from    string // where version came from
	liveOK  bool
	reset   int64
	limit   events.UsageWindow
}

// until is when the slot can be called again: its reset plus the margin.
func (s agentSlot) until() time.Time {
	if s.reset == 0 {
		return time.Time{}
	}
	return time.Unix(s.reset, 0).Add(resetMargin)
}

// fallback is FALLBACK_DRIVER's state: the main driver (slot 0), the
// fallback (slot 1) and the one the calls go to. The active slot's driver,
// path, version and live flag are the loop's own (l.s.Driver, l.drv,
// l.agentPath, l.cliVersion and l.cliFrom, l.liveOK); the plan, the breaker, the call window and
// the loop count belong to the run and are shared.
type fallback struct {
	slots  [2]agentSlot
	active int
}

// checkFallback finds the fallback CLI at start-up as the main one is
// found (on PATH, starting nothing), with the same one-line error when it
// is missing.
func (l *loop) checkFallback() error {
	if l.s.FallbackDriver == "" {
		return nil
	}
	s := l.s
	s.Driver = s.FallbackDriver
	drv, res, err := findAgent(l.ctx, s, l.deps.LookPath, "FALLBACK_DRIVER")
	if err != nil {
		return startupFailed(events.StartupFailed{Err: err})
	}
	fb := agentSlot{name: drv.Name(), drv: drv, path: res.Path, liveOK: l.liveOK}
	// Its version as its install says it, as for the main CLI
	// (installedVersion).
	in := l.deps.Agent.Installed(drv, res.Path)
	v, from := in.Version, installedFrom(in)
	ver, warning := l.checkVersion(drv, v)
	if ver != "" {
		fb.version, fb.from = ver, from
		l.bus.Note(events.AgentFound{Agent: drv.DisplayName(), Version: ver, Path: res.Path, From: fb.from})
		if warning != "" {
			l.bus.Note(events.Logged{Level: events.Warn, Text: warning})
		}
	}
	l.policy.fb = &fallback{slots: [2]agentSlot{
		{name: l.s.Driver, drv: l.drv, path: l.agentPath, liveOK: l.liveOK},
		fb,
	}}
	return nil
}

// activeDriver is the driver the calls go to, for the run's snapshot; ""
// without a fallback, so that such a run's output stays as it was.
func (l *loop) activeDriver() string {
	if l.policy.fb == nil {
		return ""
	}
	return l.s.Driver
}

// onFallback reports whether the calls go to the fallback driver.
func (l *loop) onFallback() bool { return l.policy.onFallback() }

// pickDriver gives the next call to the driver the policy picks: the main
// one, unless it is at its usage limit and the fallback is not.
func (l *loop) pickDriver() {
	want, why, change := l.policy.nextDriver()
	if !change {
		return
	}
	fb := l.policy.fb
	from := &fb.slots[fb.active]
	from.liveOK, from.version, from.from = l.liveOK, l.cliVersion, l.cliFrom
	to := &fb.slots[want]
	l.s.Driver, l.drv, l.agentPath, l.cliVersion, l.cliFrom, l.liveOK = to.name, to.drv, to.path, to.version, to.from, to.liveOK
	fb.active = want

	s := events.DriverSwitch{From: from.drv.DisplayName(), To: to.drv.DisplayName(), FromDriver: from.name, ToDriver: to.name, Why: why}
	if want == 1 {
		s.Until = fb.slots[0].until()
	}
	l.bus.DriverSwitched(l.at("driver_switched", "running"), s)
}

// limitReset is the reset a limited call reported (resetsAt, unix
// seconds), or, when it reported none still ahead, the one the usage-limit
// wait assumes.
func limitReset(resetsAt int64, now time.Time) int64 {
	if resetsAt > 0 && time.Unix(resetsAt, 0).After(now) {
		return resetsAt
	}
	end := now.Add(limitDefault - resetMargin)
	r := end.Unix()
	if end.After(time.Unix(r, 0)) {
		r++
	}
	return r
}

// resumeID is the agent session the next call resumes: the active driver's
// own ("" for a new one).
func (l *loop) resumeID() (string, error) {
	if l.onFallback() {
		return l.state.FallbackResumeID(l.s.Driver, l.now(), l.s.SessionExpiry)
	}
	return l.state.ResumeID(l.now(), l.s.SessionExpiry)
}

// saveSessionID keeps the session id the active driver reported, in that
// driver's own file.
func (l *loop) saveSessionID(id string) {
	st := store.SessionStep{Kind: store.SessionSaveID, ID: id}
	if l.onFallback() {
		st.Driver = l.s.Driver
	}
	l.sessionStep(st)
}
