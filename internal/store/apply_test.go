package store

import (
	"os"
	"testing"
	"time"

	"github.com/ralphloop/ralph_loop/analysis"
	"github.com/ralphloop/ralph_loop/breaker"
	"github.com/ralphloop/ralph_loop/internal/events"
	"github.com/ralphloop/ralph_loop/internal/gates"
	"github.com/ralphloop/ralph_loop/internal/ralphdir"
	"github.com/ralphloop/ralph_loop/internal/review"
	"github.com/ralphloop/ralph_loop/ratelimit"
)

// Every change the engine records is written to its own file by the
// store subscribed to the bus, and a change that ends a file removes it.
func TestApplyWritesEachChangesFile(t *testing.T) {
	d := newDir(t)
	s := New(d, nil, false)
	bus := events.NewBus(time.Now, "run")
	bus.Add(s)
	at := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	exists := func(name string) bool {
		_, err := os.Stat(d.Path(name))
		return err == nil
	}
	written := []struct {
		c    events.Change
		file string
	}{
		{events.WindowChanged{Window: ratelimit.Window{Count: 3, Hour: "2030010203"}}, ralphdir.CallCount},
		{events.BreakerChecked{State: breaker.State{}, Created: true}, ralphdir.CircuitBreakerHistory},
		{events.BreakerRecorded{State: breaker.State{}}, ralphdir.CircuitBreakerState},
		{events.AnalysisRecorded{Analysis: analysis.ResponseAnalysis{LoopNumber: 1}}, ralphdir.ResponseAnalysis},
		{events.ExitSignalsChanged{}, ralphdir.ExitSignals},
		{events.ErrorHistoryChanged{}, ErrorHistoryFile},
		{events.OutputLengthChanged{Length: 42}, ralphdir.LastOutputLength},
		{events.GatesRecorded{Results: &gates.Results{}}, ralphdir.QualityGateResults},
		{events.FindingsRecorded{Findings: review.Findings{}}, ralphdir.ReviewFindings},
		{events.ReviewSHARecorded{SHA: "abc"}, ralphdir.ReviewLastSHA},
		{events.LoopStarted{SHA: "abc"}, ralphdir.LoopStartSHA},
		{events.DiffSummaryRecorded{Text: "1 file"}, ralphdir.LoopDiffSummary},
		{events.WriteTimeoutMarked{At: at}, ralphdir.WriteHeartbeatTrigger},
		{events.PlanCollapsed{Content: []byte("# Plan\n")}, ralphdir.FixPlan},
		{events.SessionStarted{At: at}, ralphdir.RalphSession},
		{events.SessionTouched{At: at}, ralphdir.RalphSession},
		{events.SessionIDSaved{ID: "sess-1", At: at}, ralphdir.ClaudeSessionID},
	}
	for _, w := range written {
		if err := bus.Record(w.c); err != nil {
			t.Fatalf("Record(%T): %v", w.c, err)
		}
		if !exists(w.file) {
			t.Errorf("%T wrote no %s", w.c, w.file)
		}
	}
	removed := []struct {
		c    events.Change
		file string
	}{
		{events.AnalysisCleared{}, ralphdir.ResponseAnalysis},
		{events.FindingsCleared{}, ralphdir.ReviewFindings},
		{events.DiffSummaryTaken{}, ralphdir.LoopDiffSummary},
		{events.WriteTimeoutCleared{}, ralphdir.WriteHeartbeatTrigger},
		{events.SessionReset{Reason: "test", Loop: 1, At: at}, ralphdir.ClaudeSessionID},
	}
	for _, r := range removed {
		if err := bus.Record(r.c); err != nil {
			t.Fatalf("Record(%T): %v", r.c, err)
		}
		if exists(r.file) {
			t.Errorf("%T left %s", r.c, r.file)
		}
	}
}
