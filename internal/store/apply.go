package store

import (
	"fmt"
	"time"

	"github.com/ralphloop/ralph_loop/analysis"
	"github.com/ralphloop/ralph_loop/breaker"
	"github.com/ralphloop/ralph_loop/internal/gates"
	"github.com/ralphloop/ralph_loop/internal/observe"
	"github.com/ralphloop/ralph_loop/internal/review"
	"github.com/ralphloop/ralph_loop/ratelimit"
)

// The store is an observer of the engine's state changes: each Keeper
// method saves the file its change belongs to, atomically, and returns
// the save's error (observe.Fan reports it as a warning; the engine goes
// on from the state it keeps in memory). Some saves have no error to
// report, as the bash loop ignores those writes' failures; they return
// nil.
var _ observe.Observer = (*Store)(nil)

// WindowChanged implements observe.Keeper.
func (s *Store) WindowChanged(w ratelimit.Window) error { return s.saveWindow(w) }

// BreakerChecked implements observe.Keeper.
func (s *Store) BreakerChecked(st breaker.State, tr *breaker.Transition, created bool) error {
	return breaker.SaveStartup(s.d, st, tr, created)
}

// BreakerRecorded implements observe.Keeper.
func (s *Store) BreakerRecorded(st breaker.State, tr *breaker.Transition) error {
	return breaker.SaveRecorded(s.d, st, tr)
}

// AnalysisRecorded implements observe.Keeper.
func (s *Store) AnalysisRecorded(a analysis.ResponseAnalysis) error { return s.saveAnalysis(a) }

// AnalysisCleared implements observe.Keeper.
func (s *Store) AnalysisCleared() error { s.removeAnalysis(); return nil }

// ExitSignalsChanged implements observe.Keeper.
func (s *Store) ExitSignalsChanged(es analysis.ExitSignals) error { return s.saveExitSignals(es) }

// ErrorHistoryChanged implements observe.Keeper.
func (s *Store) ErrorHistoryChanged(h analysis.ErrorHistory) error { s.saveErrorHistory(h); return nil }

// OutputLengthChanged implements observe.Keeper.
func (s *Store) OutputLengthChanged(n int) error { s.saveOutputLength(n); return nil }

// GatesRecorded implements observe.Keeper.
func (s *Store) GatesRecorded(r *gates.Results) error { return s.saveGates(r) }

// FindingsRecorded implements observe.Keeper.
func (s *Store) FindingsRecorded(f review.Findings) error { return s.saveFindings(f) }

// FindingsCleared implements observe.Keeper.
func (s *Store) FindingsCleared() error { s.removeFindings(); return nil }

// ReviewSHARecorded implements observe.Keeper.
func (s *Store) ReviewSHARecorded(sha string) error { s.saveReviewSHA(sha); return nil }

// LoopStarted implements observe.Keeper.
func (s *Store) LoopStarted(sha string) error { s.saveLoopStart(sha); return nil }

// DiffSummaryRecorded implements observe.Keeper.
func (s *Store) DiffSummaryRecorded(text string) error { s.saveDiffSummary(text); return nil }

// DiffSummaryTaken implements observe.Keeper.
func (s *Store) DiffSummaryTaken() error { s.removeDiffSummary(); return nil }

// WriteTimeoutMarked implements observe.Keeper.
func (s *Store) WriteTimeoutMarked(at time.Time) error { s.markWriteTimeout(at); return nil }

// WriteTimeoutCleared implements observe.Keeper.
func (s *Store) WriteTimeoutCleared() error { s.clearWriteTimeout(); return nil }

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
	return s.sessions.SaveFallbackID(driver, id, at)
}

// SessionReset implements observe.Keeper.
func (s *Store) SessionReset(reason string, loop int, at time.Time) error {
	if err := s.resetSession(reason, loop, at); err != nil {
		return fmt.Errorf("session reset: %w", err)
	}
	return nil
}
