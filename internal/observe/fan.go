package observe

import (
	"fmt"
	"sync"
	"time"

	"github.com/ralphloop/ralph_loop/internal/events"
)

// Fan hands what the engine reports to every observer, one at a time, in
// the order they were added; every report shares one order. It is an
// Observer itself. It is safe for concurrent use.
type Fan struct {
	mu    sync.Mutex
	now   func() time.Time
	runID string
	obs   []Observer
}

// New returns a fan stamping reports with now() and runID.
func New(now func() time.Time, runID string) *Fan { return &Fan{now: now, runID: runID} }

// Add registers observers.
func (f *Fan) Add(obs ...Observer) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.obs = append(f.obs, obs...)
}

var _ Observer = (*Fan)(nil)

// report stamps m (the time when it has none, the run id) and hands it to
// every observer.
func (f *Fan) report(m events.Moment, call func(Observer, events.Moment)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if m.TS.IsZero() {
		m.TS = f.now()
	}
	m.RunID = f.runID
	for _, o := range f.obs {
		call(o, m)
	}
}

// say hands a person's line, stamped with the time when ts is zero, to
// every observer.
func (f *Fan) say(ts time.Time, call func(Observer, time.Time)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if ts.IsZero() {
		ts = f.now()
	}
	for _, o := range f.obs {
		call(o, ts)
	}
}

// The lifecycle methods stamp the moment (report) and hand the report to
// every observer.

func (f *Fan) RunStarted(m events.Moment, s events.Start) {
	f.report(m, func(o Observer, m events.Moment) { o.RunStarted(m, s) })
}

func (f *Fan) CallStarted(m events.Moment) { f.report(m, Observer.CallStarted) }

func (f *Fan) CallProgress(m events.Moment, w events.AgentWorking) {
	f.report(m, func(o Observer, m events.Moment) { o.CallProgress(m, w) })
}

func (f *Fan) CallEnded(m events.Moment, c events.Call) {
	f.report(m, func(o Observer, m events.Moment) { o.CallEnded(m, c) })
}

func (f *Fan) WaitStarted(m events.Moment, w events.Wait) {
	f.report(m, func(o Observer, m events.Moment) { o.WaitStarted(m, w) })
}

func (f *Fan) WaitEnded(m events.Moment, w events.Wait) {
	f.report(m, func(o Observer, m events.Moment) { o.WaitEnded(m, w) })
}

func (f *Fan) LimitHit(m events.Moment, w events.Wait) {
	f.report(m, func(o Observer, m events.Moment) { o.LimitHit(m, w) })
}

func (f *Fan) BreakerMoved(m events.Moment, c events.BreakerChange) {
	f.report(m, func(o Observer, m events.Moment) { o.BreakerMoved(m, c) })
}

func (f *Fan) UsageChanged(m events.Moment) { f.report(m, Observer.UsageChanged) }

func (f *Fan) UsageProjected(m events.Moment, p events.Projection) {
	f.report(m, func(o Observer, m events.Moment) { o.UsageProjected(m, p) })
}

func (f *Fan) DriverSwitched(m events.Moment, s events.DriverSwitch) {
	f.report(m, func(o Observer, m events.Moment) { o.DriverSwitched(m, s) })
}

func (f *Fan) Tracked(m events.Moment, t events.Task) {
	f.report(m, func(o Observer, m events.Moment) { o.Tracked(m, t) })
}

func (f *Fan) Reviewed(m events.Moment, r events.Review) {
	f.report(m, func(o Observer, m events.Moment) { o.Reviewed(m, r) })
}

func (f *Fan) Stopped(m events.Moment, e events.End) {
	f.report(m, func(o Observer, m events.Moment) { o.Stopped(m, e) })
}

// Output, Warned and Said stamp the time when ts is zero and hand it to
// every observer.

func (f *Fan) Output(ts time.Time, data []byte) {
	f.say(ts, func(o Observer, ts time.Time) { o.Output(ts, data) })
}

func (f *Fan) Warned(ts time.Time, level events.Level, err error) {
	f.say(ts, func(o Observer, ts time.Time) { o.Warned(ts, level, err) })
}

func (f *Fan) Said(ts time.Time, n events.Notice) {
	f.say(ts, func(o Observer, ts time.Time) { o.Said(ts, n) })
}

// Note says n now.
func (f *Fan) Note(n events.Notice) { f.Said(time.Time{}, n) }

// Log notes a line whose text is composed outside the engine
// (events.Logged): format and args as for fmt.Sprintf, or a plain text
// without args.
func (f *Fan) Log(level events.Level, format string, args ...any) {
	msg := format
	if len(args) > 0 {
		msg = fmt.Sprintf(format, args...)
	}
	f.Note(events.Logged{Level: level, Text: msg})
}
