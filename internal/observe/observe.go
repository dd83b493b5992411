// Package observe is how the loop engine reports what happens: one
// Observer interface, implemented by every surface (the console,
// logs/ralph.log, the .ralph/ state and log files, the notifiers, the
// dashboard), and Fan, which hands each report to all of them in order.
//
// An Observer is told three kinds of thing:
//
//   - Event: the run's lifecycle (iteration started and ended, waits,
//     breaker moves, run finished), as events.Event, whose JSON line is
//     the logs/events.jsonl contract of docs/EVENTS.md. Every event
//     carries the run's state, so a surface renders itself from the last
//     one alone.
//   - Notice: what a person watching the loop is told (log lines, boxes,
//     countdowns, the agent's live output), as a typed events.Notice that
//     package console words, for the terminal and for logs/ralph.log.
//   - Keeper's methods: a change of the run's kept state (the call count,
//     the breaker, the analysis, the session...), one method per change.
//     The state store (package store) saves each to its file; a failed
//     save comes back as the method's error, and Fan reports it to every
//     surface as one warning (see Fan's state methods).
//
// A surface embeds Nop and implements what it shows; the compiler checks
// the method set (var _ observe.Observer = (*X)(nil)), so a misspelt
// method is an error, not a surface that is silently never called.
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
	// Event is a lifecycle event, stamped (version, time, run id).
	Event(events.Event)
	// Notice is what a person is told, with the time it was noted.
	Notice(ts time.Time, n events.Notice)
	Keeper
}

// Keeper is told every change of the run's kept state: the engine keeps
// that state in memory and reports each change; the state store saves it.
// An error is a save that failed.
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
	// AnalysisRecorded: the analysis of the last successful call;
	// AnalysisCleared: the last call failed, so there is none.
	AnalysisRecorded(a analysis.ResponseAnalysis) error
	AnalysisCleared() error
	// ExitSignalsChanged, ErrorHistoryChanged, OutputLengthChanged: what
	// a call left for the next decisions.
	ExitSignalsChanged(s analysis.ExitSignals) error
	ErrorHistoryChanged(h analysis.ErrorHistory) error
	OutputLengthChanged(n int) error
	// GatesRecorded: the quality gates' results.
	GatesRecorded(r *gates.Results) error
	// FindingsRecorded: a review's findings, for the next loop;
	// FindingsCleared: they reached their one loop.
	FindingsRecorded(f review.Findings) error
	FindingsCleared() error
	// ReviewSHARecorded: the commit the last review saw.
	ReviewSHARecorded(sha string) error
	// LoopStarted: a loop starts from commit sha.
	LoopStarted(sha string) error
	// DiffSummaryRecorded: the loop's diff summary, for the next loop's
	// context; DiffSummaryTaken: the next loop took it.
	DiffSummaryRecorded(text string) error
	DiffSummaryTaken() error
	// WriteTimeoutMarked: the write heartbeat stopped a call at at; the
	// next call's context says so. WriteTimeoutCleared: the mark reached
	// its call (or a new run starts).
	WriteTimeoutMarked(at time.Time) error
	WriteTimeoutCleared() error
	// PlanCollapsed: the fix plan with its finished stories collapsed.
	PlanCollapsed(plan []byte) error
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

// Nop is an Observer that does nothing: embed it and implement what the
// surface shows.
type Nop struct{}

var _ Observer = Nop{}

func (Nop) Event(events.Event)                                            {}
func (Nop) Notice(time.Time, events.Notice)                               {}
func (Nop) WindowChanged(ratelimit.Window) error                          { return nil }
func (Nop) BreakerChecked(breaker.State, *breaker.Transition, bool) error { return nil }
func (Nop) BreakerRecorded(breaker.State, *breaker.Transition) error      { return nil }
func (Nop) AnalysisRecorded(analysis.ResponseAnalysis) error              { return nil }
func (Nop) AnalysisCleared() error                                        { return nil }
func (Nop) ExitSignalsChanged(analysis.ExitSignals) error                 { return nil }
func (Nop) ErrorHistoryChanged(analysis.ErrorHistory) error               { return nil }
func (Nop) OutputLengthChanged(int) error                                 { return nil }
func (Nop) GatesRecorded(*gates.Results) error                            { return nil }
func (Nop) FindingsRecorded(review.Findings) error                        { return nil }
func (Nop) FindingsCleared() error                                        { return nil }
func (Nop) ReviewSHARecorded(string) error                                { return nil }
func (Nop) LoopStarted(string) error                                      { return nil }
func (Nop) DiffSummaryRecorded(string) error                              { return nil }
func (Nop) DiffSummaryTaken() error                                       { return nil }
func (Nop) WriteTimeoutMarked(time.Time) error                            { return nil }
func (Nop) WriteTimeoutCleared() error                                    { return nil }
func (Nop) PlanCollapsed([]byte) error                                    { return nil }
func (Nop) SessionStarted(time.Time) error                                { return nil }
func (Nop) SessionTouched(time.Time) error                                { return nil }
func (Nop) SessionIDSaved(string, time.Time) error                        { return nil }
func (Nop) FallbackSessionIDSaved(string, string, time.Time) error        { return nil }
func (Nop) SessionReset(string, int, time.Time) error                     { return nil }
