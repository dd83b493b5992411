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
// The kept state is no happening: its changes go to a Keeper (the state
// store, package store), which the engine holds itself, not through Fan.
//
// A surface that must show every happening (the console and
// logs/ralph.log, the event log's Lines, status.json) implements every
// method itself, so a new happening does not build until it handles it.
// One that shows a few embeds Ignore (an Observer that does nothing) and
// implements those; the compiler checks their signatures (var _
// observe.Observer = (*X)(nil)), but a misspelt name builds (it is a
// method of its own, and the embedded Ignore answers for the one it
// meant), so a test walks the module's types: an observer or keeper may
// declare no exported method but Observer's, Keeper's and a short list of
// its own API (TestObserversDeclareNoStrayMethods).
package observe

import (
	"time"

	"github.com/ralphloop/ralph_loop/analysis"
	"github.com/ralphloop/ralph_loop/breaker"
	"github.com/ralphloop/ralph_loop/internal/events"
	"github.com/ralphloop/ralph_loop/internal/gates"
	"github.com/ralphloop/ralph_loop/internal/review"
	"github.com/ralphloop/ralph_loop/ratelimit"
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

// Keeper is told every change of the run's kept state: the engine keeps
// that state in memory and hands each change to its keeper, the state
// store, which saves it (the in-process dashboard wraps the store's keeper
// to see the changes too). An error is a save that failed; the store has
// already warned of it once, on every surface, with what it means, and
// the engine decides what else it means.
type Keeper interface {
	// WindowChanged: the call count or its hour changed.
	WindowChanged(w ratelimit.Window) error
	// BreakerChecked: the breaker's check at the start of an iteration;
	// tr is the move it made (nil: none); created says the state was
	// never kept (or without a usable last change), so it is kept now
	// even when nothing moved.
	BreakerChecked(s breaker.State, tr *breaker.Transition, created bool) error
	// BreakerRecorded: the breaker recorded a loop's result; tr is the
	// move it made (nil: none).
	BreakerRecorded(s breaker.State, tr *breaker.Transition) error
	// AnalysisChanged: the analysis of the last successful call; nil:
	// the last call failed, so there is none.
	AnalysisChanged(a *analysis.ResponseAnalysis) error
	// ExitSignalsChanged, ErrorHistoryChanged, OutputLengthChanged: what
	// a call left for the next decisions.
	ExitSignalsChanged(s analysis.ExitSignals) error
	ErrorHistoryChanged(h analysis.ErrorHistory) error
	OutputLengthChanged(n int) error
	// GatesRecorded: the quality gates' results.
	GatesRecorded(r *gates.Results) error
	// FindingsChanged: a review's findings, for the next loop; nil: they
	// reached their one loop.
	FindingsChanged(f *review.Findings) error
	// ReviewSHARecorded: the commit the last review saw.
	ReviewSHARecorded(sha string) error
	// LoopStarted: a loop starts from commit sha.
	LoopStarted(sha string) error
	// DiffSummaryChanged: the loop's diff summary, for the next loop's
	// context; "": the next loop took it.
	DiffSummaryChanged(text string) error
	// WriteTimeoutChanged: the write heartbeat stopped a call at at; the
	// next call's context says so. The zero time: the mark reached its
	// call (or a new run starts).
	WriteTimeoutChanged(at time.Time) error
	// PlanCollapsed: the fix plan with its finished stories collapsed.
	PlanCollapsed(plan []byte) error
	// PlanUnticked: the fix plan with the tasks whose VERIFY_COMMAND
	// failed open again.
	PlanUnticked(plan []byte) error
	// PlanSetAside: the fix plan with a task set aside with the agent's
	// unanswered question (ASK_TIMEOUT_ACTION=skip).
	PlanSetAside(plan []byte) error
	// SessionStarted: session tracking starts (an active session of an
	// earlier run goes on); SessionTouched: an iteration uses it.
	SessionStarted(at time.Time) error
	SessionTouched(at time.Time) error
	// SessionIDSaved: the agent reported its session id;
	// FallbackSessionIDSaved: the fallback driver did, kept in that
	// driver's own session file.
	SessionIDSaved(id string, at time.Time) error
	FallbackSessionIDSaved(driver, id string, at time.Time) error
	// SessionReset: the session ends, in loop loop, for reason.
	SessionReset(reason string, loop int, at time.Time) error
}

// Ignore is an Observer that does nothing: an observer that shows a few
// happenings embeds it and implements those.
var Ignore Observer = ignore{}

// Discard is a Keeper that saves nothing: a dry run's, whose changes go
// nowhere; a keeper that looks at some changes only embeds it.
var Discard Keeper = ignore{}

type ignore struct{}

func (ignore) RunStarted(events.Moment, events.Start)                        {}
func (ignore) CallStarted(events.Moment)                                     {}
func (ignore) CallProgress(events.Moment, events.AgentWorking)               {}
func (ignore) CallEnded(events.Moment, events.Call)                          {}
func (ignore) WaitStarted(events.Moment, events.Wait)                        {}
func (ignore) WaitEnded(events.Moment, events.Wait)                          {}
func (ignore) LimitHit(events.Moment, events.Wait)                           {}
func (ignore) BreakerMoved(events.Moment, events.BreakerChange)              {}
func (ignore) UsageChanged(events.Moment)                                    {}
func (ignore) DriverSwitched(events.Moment, events.DriverSwitch)             {}
func (ignore) UsageProjected(events.Moment, events.Projection)               {}
func (ignore) Tracked(events.Moment, events.Task)                            {}
func (ignore) Reviewed(events.Moment, events.Review)                         {}
func (ignore) Stopped(events.Moment, events.End)                             {}
func (ignore) Output(time.Time, []byte)                                      {}
func (ignore) Warned(time.Time, events.Level, error)                         {}
func (ignore) Said(time.Time, events.Notice)                                 {}
func (ignore) WindowChanged(ratelimit.Window) error                          { return nil }
func (ignore) BreakerChecked(breaker.State, *breaker.Transition, bool) error { return nil }
func (ignore) BreakerRecorded(breaker.State, *breaker.Transition) error      { return nil }
func (ignore) AnalysisChanged(*analysis.ResponseAnalysis) error              { return nil }
func (ignore) ExitSignalsChanged(analysis.ExitSignals) error                 { return nil }
func (ignore) ErrorHistoryChanged(analysis.ErrorHistory) error               { return nil }
func (ignore) OutputLengthChanged(int) error                                 { return nil }
func (ignore) GatesRecorded(*gates.Results) error                            { return nil }
func (ignore) FindingsChanged(*review.Findings) error                        { return nil }
func (ignore) ReviewSHARecorded(string) error                                { return nil }
func (ignore) LoopStarted(string) error                                      { return nil }
func (ignore) DiffSummaryChanged(string) error                               { return nil }
func (ignore) WriteTimeoutChanged(time.Time) error                           { return nil }
func (ignore) PlanCollapsed([]byte) error                                    { return nil }
func (ignore) PlanUnticked([]byte) error                                     { return nil }
func (ignore) PlanSetAside([]byte) error                                     { return nil }
func (ignore) SessionStarted(time.Time) error                                { return nil }
func (ignore) SessionTouched(time.Time) error                                { return nil }
func (ignore) SessionIDSaved(string, time.Time) error                        { return nil }
func (ignore) FallbackSessionIDSaved(string, string, time.Time) error        { return nil }
func (ignore) SessionReset(string, int, time.Time) error                     { return nil }
