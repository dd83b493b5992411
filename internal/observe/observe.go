// Package observe is how the loop engine reports what happens: one
// Observer interface, implemented by every surface (the console,
// logs/ralph.log, the .ralph/ state and log files, the notifiers, the
// dashboard), and Fan, which hands each report to all of them in order.
//
// An Observer has one method per kind of happening, each with a typed
// value:
//
//   - the run's lifecycle: RunStarted, CallStarted, CallProgress,
//     CallEnded, WaitStarted, WaitEnded, LimitHit, BreakerMoved,
//     UsageChanged, DriverSwitched, UsageProjected, Tracked, Reviewed,
//     Stopped. Each carries an
//     events.Moment (the time, the run id, the run's state and
//     status.json's action and status), so a surface renders itself from
//     the last report alone. Each of them but CallProgress is one line of
//     logs/events.jsonl (docs/EVENTS.md); Lines builds that line.
//   - Output: a piece of the agent's live output; Warned: an error the
//     loop reports (and carries on after, at level Warn).
//   - Said: the rest of what a person watching the loop is told (the
//     log lines, boxes and countdowns that belong to no happening above),
//     typed values (events.Notice), each with its own words, which
//     package console lays out for the terminal and for logs/ralph.log.
//
// The kept state is no happening: the engine saves it whole through its
// own Keeper (engine.Keeper: the state store, package store), not through
// Fan.
//
// A surface that must show every happening (the console and
// logs/ralph.log, the event log's Lines, status.json) implements every
// method itself, so a new happening does not build until it handles it.
// One that shows a few embeds Ignore (an Observer that does nothing) and
// implements those; the compiler checks their signatures (var _
// observe.Observer = (*X)(nil)), but a misspelt name builds (it is a
// method of its own, and the embedded Ignore answers for the one it
// meant), so a test walks the module's types: an observer may declare no
// exported method but Observer's and a short list of its own API (TestObserversDeclareNoStrayMethods).
package observe

import (
	"time"

	"github.com/ralphloop/ralph_loop/internal/events"
)

// Observer is a surface the loop reports to.
type Observer interface {
	// RunStarted: the main loop starts.
	RunStarted(m events.Moment, s events.Start)
	// CallStarted: an agent call starts (loop m.Loop).
	CallStarted(m events.Moment)
	// CallProgress: the call runs, every 10 s (w.Elapsed; zero for the
	// record written as it starts), with its last line of output.
	CallProgress(m events.Moment, w events.AgentWorking)
	// CallEnded: the call ended, how is c.Outcome.
	CallEnded(m events.Moment, c events.Call)
	// WaitStarted and WaitEnded: the loop waits (w.Kind: a delay, a
	// back-off, a limit's wait; events.WaitPause while paused).
	WaitStarted(m events.Moment, w events.Wait)
	WaitEnded(m events.Moment, w events.Wait)
	// LimitHit: the hour's calls are used up (w.Kind rate_limit) or the
	// provider's usage limit or warning stops the calls (usage_limit);
	// the wait follows.
	LimitHit(m events.Moment, w events.Wait)
	// BreakerMoved: the circuit breaker moved.
	BreakerMoved(m events.Moment, c events.BreakerChange)
	// UsageChanged: the known usage of the provider's windows changed
	// (m.UsageLimits).
	UsageChanged(m events.Moment)
	// DriverSwitched: the loop goes on with another agent CLI.
	DriverSwitched(m events.Moment, s events.DriverSwitch)
	// UsageProjected: at the machine's present burn, a usage window
	// reaches a threshold before it resets (the usage governor).
	UsageProjected(m events.Moment, p events.Projection)
	// Tracked: a tracker's items were imported, claimed, closed or
	// released, or a tracker command failed (TASK_SOURCES).
	Tracked(m events.Moment, t events.Task)
	// Reviewed: a review call ended; r says what it found.
	Reviewed(m events.Moment, r events.Review)
	// Stopped: the run ended.
	Stopped(m events.Moment, e events.End)
	// Output is a piece of the agent's live output.
	Output(ts time.Time, data []byte)
	// Warned: an error the loop reports, at level (events.Warn: it
	// carries on; events.Error: it cannot).
	Warned(ts time.Time, level events.Level, err error)
	// Said is what a person is told, with the time it was said.
	Said(ts time.Time, n events.Notice)
}

// Ignore is an Observer that does nothing: an observer that shows a few
// happenings embeds it and implements those.
var Ignore Observer = ignore{}

type ignore struct{}

func (ignore) RunStarted(events.Moment, events.Start)            {}
func (ignore) CallStarted(events.Moment)                         {}
func (ignore) CallProgress(events.Moment, events.AgentWorking)   {}
func (ignore) CallEnded(events.Moment, events.Call)              {}
func (ignore) WaitStarted(events.Moment, events.Wait)            {}
func (ignore) WaitEnded(events.Moment, events.Wait)              {}
func (ignore) LimitHit(events.Moment, events.Wait)               {}
func (ignore) BreakerMoved(events.Moment, events.BreakerChange)  {}
func (ignore) UsageChanged(events.Moment)                        {}
func (ignore) DriverSwitched(events.Moment, events.DriverSwitch) {}
func (ignore) UsageProjected(events.Moment, events.Projection)   {}
func (ignore) Tracked(events.Moment, events.Task)                {}
func (ignore) Reviewed(events.Moment, events.Review)             {}
func (ignore) Stopped(events.Moment, events.End)                 {}
func (ignore) Output(time.Time, []byte)                          {}
func (ignore) Warned(time.Time, events.Level, error)             {}
func (ignore) Said(time.Time, events.Notice)                     {}
