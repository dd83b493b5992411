package store

import (
	"os"
	"testing"
	"time"

	"github.com/ralphloop/ralph_loop/analysis"
	"github.com/ralphloop/ralph_loop/breaker"
	"github.com/ralphloop/ralph_loop/internal/gates"
	"github.com/ralphloop/ralph_loop/internal/observe"
	"github.com/ralphloop/ralph_loop/internal/ralphdir"
	"github.com/ralphloop/ralph_loop/internal/review"
	"github.com/ralphloop/ralph_loop/ratelimit"
)

// Every state change the engine reports is saved to its own file by the
// store's keeper, and a change that ends a file removes it.
func TestStoreSavesEachChangesFile(t *testing.T) {
	d := newDir(t)
	k := New(d, nil, nil, false).Keeper()
	at := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	exists := func(name string) bool {
		_, err := os.Stat(d.Path(name))
		return err == nil
	}
	type change struct {
		name string
		do   func(k observe.Keeper) error
		file string
	}
	written := []change{
		{"WindowChanged", func(k observe.Keeper) error {
			return k.WindowChanged(ratelimit.Window{Count: 3, Hour: "2030010203"})
		}, ralphdir.CallCount},
		{"BreakerChecked", func(k observe.Keeper) error { return k.BreakerChecked(breaker.State{}, nil, true) }, circuitBreakerHistory},
		{"BreakerRecorded", func(k observe.Keeper) error { return k.BreakerRecorded(breaker.State{}, nil) }, ralphdir.CircuitBreakerState},
		{"AnalysisChanged", func(k observe.Keeper) error {
			return k.AnalysisChanged(&analysis.ResponseAnalysis{LoopNumber: 1})
		}, ralphdir.ResponseAnalysis},
		{"ExitSignalsChanged", func(k observe.Keeper) error { return k.ExitSignalsChanged(analysis.ExitSignals{}) }, exitSignals},
		{"ErrorHistoryChanged", func(k observe.Keeper) error { return k.ErrorHistoryChanged(analysis.ErrorHistory{}) }, errorHistoryFile},
		{"OutputLengthChanged", func(k observe.Keeper) error { return k.OutputLengthChanged(42) }, lastOutputLength},
		{"GatesRecorded", func(k observe.Keeper) error { return k.GatesRecorded(&gates.Results{}) }, qualityGateResults},
		{"FindingsChanged", func(k observe.Keeper) error { return k.FindingsChanged(&review.Findings{}) }, reviewFindings},
		{"ReviewSHARecorded", func(k observe.Keeper) error { return k.ReviewSHARecorded("abc") }, reviewLastSHA},
		{"LoopStarted", func(k observe.Keeper) error { return k.LoopStarted("abc") }, loopStartSHA},
		{"DiffSummaryChanged", func(k observe.Keeper) error { return k.DiffSummaryChanged("1 file") }, loopDiffSummary},
		{"WriteTimeoutChanged", func(k observe.Keeper) error { return k.WriteTimeoutChanged(at) }, writeHeartbeatTrigger},
		{"PlanCollapsed", func(k observe.Keeper) error { return k.PlanCollapsed([]byte("# Plan\n")) }, ralphdir.FixPlan},
		{"SessionStarted", func(k observe.Keeper) error { return k.SessionStarted(at) }, ralphSession},
		{"SessionTouched", func(k observe.Keeper) error { return k.SessionTouched(at) }, ralphSession},
		{"SessionIDSaved", func(k observe.Keeper) error { return k.SessionIDSaved("sess-1", at) }, claudeSessionID},
	}
	for _, w := range written {
		if err := w.do(k); err != nil {
			t.Fatalf("%s: %v", w.name, err)
		}
		if !exists(w.file) {
			t.Errorf("%s wrote no %s", w.name, w.file)
		}
	}
	removed := []change{
		{"AnalysisChanged(nil)", func(k observe.Keeper) error { return k.AnalysisChanged(nil) }, ralphdir.ResponseAnalysis},
		{"FindingsChanged(nil)", func(k observe.Keeper) error { return k.FindingsChanged(nil) }, reviewFindings},
		{"DiffSummaryChanged(\"\")", func(k observe.Keeper) error { return k.DiffSummaryChanged("") }, loopDiffSummary},
		{"WriteTimeoutChanged(zero)", func(k observe.Keeper) error { return k.WriteTimeoutChanged(time.Time{}) }, writeHeartbeatTrigger},
		{"SessionReset", func(k observe.Keeper) error { return k.SessionReset("test", 1, at) }, claudeSessionID},
	}
	for _, r := range removed {
		if err := r.do(k); err != nil {
			t.Fatalf("%s: %v", r.name, err)
		}
		if exists(r.file) {
			t.Errorf("%s left %s", r.name, r.file)
		}
	}
}
