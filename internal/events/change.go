package events

import (
	"errors"
	"time"

	"github.com/ralphloop/ralph_loop/analysis"
	"github.com/ralphloop/ralph_loop/breaker"
	"github.com/ralphloop/ralph_loop/internal/gates"
	"github.com/ralphloop/ralph_loop/internal/review"
	"github.com/ralphloop/ralph_loop/ratelimit"
)

// Change is a change of the run's kept state, decided by the engine: the
// call count, the breaker, the last analysis, the exit signals, the
// session... The engine keeps that state in memory and records each change
// with Bus.Record; the .ralph/ state store (package store) subscribes and
// writes the file the change belongs to. Change values carry typed data,
// never file content, so that another subscriber (a dashboard, a hook)
// reads the same values.
type Change interface {
	change()
}

// ChangeSink receives every recorded change. Its error (a write that
// failed) goes back to the engine, which reports it and decides what it
// means, as it did when it wrote the file itself.
type ChangeSink interface {
	Apply(Change) error
}

// Record hands c to every change sink, in the order they were added, and
// returns their errors joined (nil when all succeeded; the one error
// itself when only one failed). Changes are handed over one at a time; log
// lines and events may be sent meanwhile, so that a change sink can log.
func (b *Bus) Record(c Change) error {
	b.mu.Lock()
	sinks := b.changes
	b.mu.Unlock()
	b.cmu.Lock()
	defer b.cmu.Unlock()
	var errs []error
	for _, s := range sinks {
		if err := s.Apply(c); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) == 1 {
		return errs[0]
	}
	return errors.Join(errs...)
}

// WindowChanged: the call count or its hour changed.
type WindowChanged struct{ Window ratelimit.Window }

// BreakerChecked: the breaker's check at the start of an iteration.
// Transition is the move it made (nil: none); Created says the state was
// never kept (or kept without a usable last change), so it is kept now
// even when nothing moved.
type BreakerChecked struct {
	State      breaker.State
	Transition *breaker.Transition
	Created    bool
}

// BreakerRecorded: a loop's result was recorded by the breaker; Transition
// is the move it made (nil: none).
type BreakerRecorded struct {
	State      breaker.State
	Transition *breaker.Transition
}

// AnalysisRecorded: the analysis of the last successful call.
type AnalysisRecorded struct{ Analysis analysis.ResponseAnalysis }

// AnalysisCleared: the last call failed, so there is no last analysis.
type AnalysisCleared struct{}

// ExitSignalsChanged: the recent exit signals after a call.
type ExitSignalsChanged struct{ Signals analysis.ExitSignals }

// ErrorHistoryChanged: the error lines of recent loops after a call.
type ErrorHistoryChanged struct{ History analysis.ErrorHistory }

// OutputLengthChanged: the length of the last call's output.
type OutputLengthChanged struct{ Length int }

// GatesRecorded: the quality gates' results.
type GatesRecorded struct{ Results *gates.Results }

// FindingsRecorded: a review's findings, for the next loop.
type FindingsRecorded struct{ Findings review.Findings }

// FindingsCleared: the findings reached their one loop.
type FindingsCleared struct{}

// ReviewSHARecorded: the commit the last review saw.
type ReviewSHARecorded struct{ SHA string }

// LoopStarted: a loop starts from commit SHA.
type LoopStarted struct{ SHA string }

// DiffSummaryRecorded: the loop's diff summary, for the next loop's
// context.
type DiffSummaryRecorded struct{ Text string }

// DiffSummaryTaken: the next loop took the diff summary.
type DiffSummaryTaken struct{}

// WriteTimeoutMarked: the write heartbeat stopped a call at At; the next
// call's context says so.
type WriteTimeoutMarked struct{ At time.Time }

// WriteTimeoutCleared: the mark reached its call (or a new run starts).
type WriteTimeoutCleared struct{}

// PlanCollapsed: the fix plan with its finished stories collapsed.
type PlanCollapsed struct{ Content []byte }

// SessionStarted: session tracking starts at At (an active session of an
// earlier run goes on).
type SessionStarted struct{ At time.Time }

// SessionTouched: an iteration uses the session at At.
type SessionTouched struct{ At time.Time }

// SessionIDSaved: the agent reported its session id at At.
type SessionIDSaved struct {
	ID string
	At time.Time
}

// SessionReset: the session ends at At, in loop Loop, for Reason.
type SessionReset struct {
	Reason string
	Loop   int
	At     time.Time
}

func (WindowChanged) change()       {}
func (BreakerChecked) change()      {}
func (BreakerRecorded) change()     {}
func (AnalysisRecorded) change()    {}
func (AnalysisCleared) change()     {}
func (ExitSignalsChanged) change()  {}
func (ErrorHistoryChanged) change() {}
func (OutputLengthChanged) change() {}
func (GatesRecorded) change()       {}
func (FindingsRecorded) change()    {}
func (FindingsCleared) change()     {}
func (ReviewSHARecorded) change()   {}
func (LoopStarted) change()         {}
func (DiffSummaryRecorded) change() {}
func (DiffSummaryTaken) change()    {}
func (WriteTimeoutMarked) change()  {}
func (WriteTimeoutCleared) change() {}
func (PlanCollapsed) change()       {}
func (SessionStarted) change()      {}
func (SessionTouched) change()      {}
func (SessionIDSaved) change()      {}
func (SessionReset) change()        {}
