package store

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
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

// A save that fails is never dropped: every change the engine records
// returns its write's error, worded as one warning that names the file
// and says what the failure means.
func TestEveryFailedSaveIsReported(t *testing.T) {
	at := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, tc := range []struct {
		c    events.Change
		file string
	}{
		{events.WindowChanged{Window: ratelimit.Window{Count: 3, Hour: "2030010203"}}, ralphdir.CallCount},
		{events.BreakerChecked{State: breaker.State{}, Created: true}, ralphdir.CircuitBreakerState},
		{events.BreakerRecorded{State: breaker.State{}}, ralphdir.CircuitBreakerState},
		{events.AnalysisRecorded{Analysis: analysis.ResponseAnalysis{LoopNumber: 1}}, ralphdir.ResponseAnalysis},
		{events.AnalysisCleared{}, ralphdir.ResponseAnalysis},
		{events.ExitSignalsChanged{}, ralphdir.ExitSignals},
		{events.ErrorHistoryChanged{}, ErrorHistoryFile},
		{events.OutputLengthChanged{Length: 42}, ralphdir.LastOutputLength},
		{events.GatesRecorded{Results: &gates.Results{}}, ralphdir.QualityGateResults},
		{events.FindingsRecorded{Findings: review.Findings{}}, ralphdir.ReviewFindings},
		{events.FindingsCleared{}, ralphdir.ReviewFindings},
		{events.ReviewSHARecorded{SHA: "abc"}, ralphdir.ReviewLastSHA},
		{events.LoopStarted{SHA: "abc"}, ralphdir.LoopStartSHA},
		{events.DiffSummaryRecorded{Text: "1 file"}, ralphdir.LoopDiffSummary},
		{events.DiffSummaryTaken{}, ralphdir.LoopDiffSummary},
		{events.WriteTimeoutMarked{At: at}, ralphdir.WriteHeartbeatTrigger},
		{events.WriteTimeoutCleared{}, ralphdir.WriteHeartbeatTrigger},
		{events.PlanCollapsed{Content: []byte("# Plan\n")}, ralphdir.FixPlan},
		{events.SessionStarted{At: at}, ralphdir.RalphSession},
		{events.SessionIDSaved{ID: "sess-1", At: at}, ralphdir.ClaudeSessionID},
		{events.FallbackSessionIDSaved{Driver: "codex", ID: "sess-1", At: at}, ralphdir.FallbackSessionID("codex")},
		{events.SessionReset{Reason: "test", Loop: 1, At: at}, ralphdir.RalphSession},
	} {
		t.Run(strings.TrimPrefix(typeName(tc.c), "events."), func(t *testing.T) {
			// .ralph is a plain file: nothing under it can be written or
			// removed.
			root := filepath.Join(t.TempDir(), ".ralph")
			if err := os.WriteFile(root, nil, 0o644); err != nil {
				t.Fatal(err)
			}
			d := ralphdir.New(root, func(string) {})
			err := New(d, nil, false).Apply(tc.c)
			if err == nil {
				t.Fatalf("Apply(%T) = nil; the failed save was dropped", tc.c)
			}
			want := "could not save " + d.Path(tc.file) + ": "
			if !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), "; ") {
				t.Errorf("Apply(%T) = %q; want %q, the error and its consequence", tc.c, err, want+"...; ...")
			}
		})
	}
}

func typeName(v any) string { return fmt.Sprintf("%T", v) }

// Load creates a missing .exit_signals; when it cannot, that is its
// warning, apart from the error that stops the start.
func TestLoadReportsExitSignalsItCannotCreate(t *testing.T) {
	root := filepath.Join(t.TempDir(), ".ralph")
	if err := os.WriteFile(root, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	d := ralphdir.New(root, func(string) {})
	_, warning, _ := New(d, nil, false).Load(time.Now())
	if warning == nil || !strings.HasPrefix(warning.Error(), "could not save "+d.Path(ralphdir.ExitSignals)+": ") {
		t.Fatalf("Load's warning = %v; want the .exit_signals it could not create", warning)
	}
}

// Peek reads the kept state and changes nothing: a damaged file stays
// where it is and is named with what is wrong with it.
func TestPeekChangesNothing(t *testing.T) {
	d := newDir(t)
	now := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	files := map[string]string{
		ralphdir.CallCount:           "7\n",
		ralphdir.LastReset:           "2030010203\n",
		ralphdir.CircuitBreakerState: "{not json",
		ralphdir.ExitSignals:         `{"test_only_loops": [], "done_signals": [1], "completion_indicators": []}`,
		ralphdir.QualityGateResults:  `{"overall_status": "pass", "mode": "warn", "custom_gates": []}`,
		ralphdir.ReviewFindings:      "[]",
		ralphdir.ReviewLastSHA:       "abc\n",
		ralphdir.RalphSession:        `{"session_id": "s-1", "created_at": "2030-01-01T00:00:00+00:00", "last_used": "2030-01-01T00:00:00+00:00"}`,
	}
	for name, content := range files {
		if err := os.WriteFile(d.Path(name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	before := listDir(t, d.Root())
	k, damaged := Peek(d, now)
	if after := listDir(t, d.Root()); after != before {
		t.Errorf("Peek changed .ralph/:\nbefore %s\nafter  %s", before, after)
	}
	if k.Window.Count != 7 || k.Breaker.State != breaker.Closed || k.Gates == nil || k.ReviewSHA != "abc" || k.Session.SessionID != "s-1" {
		t.Errorf("Peek = %+v", k)
	}
	for _, name := range []string{ralphdir.CircuitBreakerState, ralphdir.ReviewFindings} {
		if damaged[name] == nil {
			t.Errorf("damaged[%s] = nil; want what is wrong with it (damaged: %v)", name, damaged)
		}
	}
	if len(damaged) != 2 {
		t.Errorf("damaged = %v; want the breaker and the findings", damaged)
	}
}

// listDir is the names and contents of the files in dir, as one string.
func listDir(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		data, _ := os.ReadFile(filepath.Join(dir, e.Name()))
		b.WriteString(e.Name() + "=" + string(data) + ";")
	}
	return b.String()
}
