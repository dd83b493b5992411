package store

import (
	"time"

	"github.com/ralphloop/ralph_loop/analysis"
	"github.com/ralphloop/ralph_loop/breaker"
	"github.com/ralphloop/ralph_loop/internal/gates"
	"github.com/ralphloop/ralph_loop/internal/observe"
	"github.com/ralphloop/ralph_loop/internal/ralphdir"
	"github.com/ralphloop/ralph_loop/internal/review"
	"github.com/ralphloop/ralph_loop/ratelimit"
)

// The store is an observer of the engine's state changes: each Keeper
// method saves the file its change belongs to, atomically, and returns
// the save's error, worded with what it means (observe.Fan reports it once
// as a warning; the engine goes on from the state it keeps in memory).
var _ observe.Observer = (*Store)(nil)

// WindowChanged implements observe.Keeper.
func (s *Store) WindowChanged(w ratelimit.Window) error { return s.saveWindow(w) }

// BreakerChecked implements observe.Keeper.
func (s *Store) BreakerChecked(st breaker.State, tr *breaker.Transition, created bool) error {
	return failed(s.d, ralphdir.CircuitBreakerState, saveBreakerStartup(s.d, st, tr, created),
		"the next run starts from the breaker state last saved")
}

// BreakerRecorded implements observe.Keeper.
func (s *Store) BreakerRecorded(st breaker.State, tr *breaker.Transition) error {
	return failed(s.d, ralphdir.CircuitBreakerState, saveBreakerRecorded(s.d, st, tr),
		"the next run starts from the breaker state last saved")
}

// AnalysisRecorded implements observe.Keeper.
func (s *Store) AnalysisRecorded(a analysis.ResponseAnalysis) error { return s.saveAnalysis(a) }

// AnalysisCleared implements observe.Keeper.
func (s *Store) AnalysisCleared() error { return s.removeAnalysis() }

// ExitSignalsChanged implements observe.Keeper.
func (s *Store) ExitSignalsChanged(es analysis.ExitSignals) error { return s.saveExitSignals(es) }

// ErrorHistoryChanged implements observe.Keeper.
func (s *Store) ErrorHistoryChanged(h analysis.ErrorHistory) error { return s.saveErrorHistory(h) }

// OutputLengthChanged implements observe.Keeper.
func (s *Store) OutputLengthChanged(n int) error { return s.saveOutputLength(n) }

// GatesRecorded implements observe.Keeper.
func (s *Store) GatesRecorded(r *gates.Results) error { return s.saveGates(r) }

// FindingsRecorded implements observe.Keeper.
func (s *Store) FindingsRecorded(f review.Findings) error { return s.saveFindings(f) }

// FindingsCleared implements observe.Keeper.
func (s *Store) FindingsCleared() error { return s.removeFindings() }

// ReviewSHARecorded implements observe.Keeper.
func (s *Store) ReviewSHARecorded(sha string) error { return s.saveReviewSHA(sha) }

// LoopStarted implements observe.Keeper.
func (s *Store) LoopStarted(sha string) error { return s.saveLoopStart(sha) }

// DiffSummaryRecorded implements observe.Keeper.
func (s *Store) DiffSummaryRecorded(text string) error { return s.saveDiffSummary(text) }

// DiffSummaryTaken implements observe.Keeper.
func (s *Store) DiffSummaryTaken() error { return s.removeDiffSummary() }

// WriteTimeoutMarked implements observe.Keeper.
func (s *Store) WriteTimeoutMarked(at time.Time) error { return s.markWriteTimeout(at) }

// WriteTimeoutCleared implements observe.Keeper.
func (s *Store) WriteTimeoutCleared() error { return s.clearWriteTimeout() }

// PlanCollapsed implements observe.Keeper.
func (s *Store) PlanCollapsed(plan []byte) error { return s.savePlan(plan) }

// SessionStarted implements observe.Keeper.
func (s *Store) SessionStarted(at time.Time) error { return s.startSession(at) }

// SessionTouched implements observe.Keeper.
func (s *Store) SessionTouched(at time.Time) error { return s.touchSession(at) }

// SessionIDSaved implements observe.Keeper.
func (s *Store) SessionIDSaved(id string, at time.Time) error { return s.saveSessionID(id, at) }

// FallbackSessionIDSaved implements observe.Keeper.
func (s *Store) FallbackSessionIDSaved(driver, id string, at time.Time) error {
	return s.saveFallbackID(driver, id, at)
}

// SessionReset implements observe.Keeper.
func (s *Store) SessionReset(reason string, loop int, at time.Time) error {
	return s.resetSession(reason, loop, at)
}
