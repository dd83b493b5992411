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

// Keeper is the store as the engine's keeper: each change of the kept
// state the engine hands it is saved to the file it belongs to,
// atomically, and a save that fails is warned of once (failed) and
// returned, worded with what it means; the engine goes on from the state
// it keeps in memory.
func (s *Store) Keeper() observe.Keeper { return keeper{s} }

// keeper is the Store's observe.Keeper.
type keeper struct{ s *Store }

var _ observe.Keeper = keeper{}

func (k keeper) WindowChanged(w ratelimit.Window) error { return k.s.saveWindow(w) }

func (k keeper) BreakerChecked(st breaker.State, tr *breaker.Transition, created bool) error {
	return k.s.failed(ralphdir.CircuitBreakerState, saveBreakerStartup(k.s.d, st, tr, created),
		"the next run starts from the breaker state last saved")
}

func (k keeper) BreakerRecorded(st breaker.State, tr *breaker.Transition) error {
	return k.s.failed(ralphdir.CircuitBreakerState, saveBreakerRecorded(k.s.d, st, tr),
		"the next run starts from the breaker state last saved")
}

func (k keeper) AnalysisChanged(a *analysis.ResponseAnalysis) error {
	if a == nil {
		return k.s.removeAnalysis()
	}
	return k.s.saveAnalysis(*a)
}

func (k keeper) ExitSignalsChanged(es analysis.ExitSignals) error { return k.s.saveExitSignals(es) }

func (k keeper) ErrorHistoryChanged(h analysis.ErrorHistory) error { return k.s.saveErrorHistory(h) }

func (k keeper) OutputLengthChanged(n int) error { return k.s.saveOutputLength(n) }

func (k keeper) GatesRecorded(r *gates.Results) error { return k.s.saveGates(r) }

func (k keeper) FindingsChanged(f *review.Findings) error {
	if f == nil {
		return k.s.removeFindings()
	}
	return k.s.saveFindings(*f)
}

func (k keeper) ReviewSHARecorded(sha string) error { return k.s.saveReviewSHA(sha) }

func (k keeper) LoopStarted(sha string) error { return k.s.saveLoopStart(sha) }

func (k keeper) DiffSummaryChanged(text string) error {
	if text == "" {
		return k.s.removeDiffSummary()
	}
	return k.s.saveDiffSummary(text)
}

func (k keeper) WriteTimeoutChanged(at time.Time) error {
	if at.IsZero() {
		return k.s.clearWriteTimeout()
	}
	return k.s.markWriteTimeout(at)
}

func (k keeper) PlanCollapsed(plan []byte) error { return k.s.savePlan(plan) }

func (k keeper) PlanUnticked(plan []byte) error { return k.s.saveUnticked(plan) }

func (k keeper) SessionStarted(at time.Time) error { return k.s.startSession(at) }

func (k keeper) SessionTouched(at time.Time) error { return k.s.touchSession(at) }

func (k keeper) SessionIDSaved(id string, at time.Time) error { return k.s.saveSessionID(id, at) }

func (k keeper) FallbackSessionIDSaved(driver, id string, at time.Time) error {
	return k.s.saveFallbackID(driver, id, at)
}

func (k keeper) SessionReset(reason string, loop int, at time.Time) error {
	return k.s.resetSession(reason, loop, at)
}
