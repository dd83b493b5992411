package store

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ralphloop/ralph_loop/analysis"
	"github.com/ralphloop/ralph_loop/breaker"
	"github.com/ralphloop/ralph_loop/internal/gates"
	"github.com/ralphloop/ralph_loop/internal/ralphdir"
	"github.com/ralphloop/ralph_loop/internal/review"
	"github.com/ralphloop/ralph_loop/ratelimit"
)

// A save that fails is never dropped: every change the engine records
// returns its write's error, worded as one warning that names the file
// and says what the failure means, and warns of it once.
func TestEveryFailedSaveIsReported(t *testing.T) {
	at := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, tc := range []struct {
		name string
		save func(*Store) error
		file string
	}{
		{"WindowChanged", func(s *Store) error { return s.Keeper().WindowChanged(ratelimit.Window{Count: 3, Hour: "2030010203"}) }, ralphdir.CallCount},
		{"BreakerChecked", func(s *Store) error { return s.Keeper().BreakerChecked(breaker.State{}, nil, true) }, ralphdir.CircuitBreakerState},
		{"BreakerRecorded", func(s *Store) error { return s.Keeper().BreakerRecorded(breaker.State{}, nil) }, ralphdir.CircuitBreakerState},
		{"AnalysisChanged", func(s *Store) error { return s.Keeper().AnalysisChanged(&analysis.ResponseAnalysis{LoopNumber: 1}) }, ralphdir.ResponseAnalysis},
		{"AnalysisChanged(nil)", func(s *Store) error { return s.Keeper().AnalysisChanged(nil) }, ralphdir.ResponseAnalysis},
		{"ExitSignalsChanged", func(s *Store) error { return s.Keeper().ExitSignalsChanged(analysis.ExitSignals{}) }, exitSignals},
		{"ErrorHistoryChanged", func(s *Store) error { return s.Keeper().ErrorHistoryChanged(analysis.ErrorHistory{}) }, errorHistoryFile},
		{"OutputLengthChanged", func(s *Store) error { return s.Keeper().OutputLengthChanged(42) }, lastOutputLength},
		{"GatesRecorded", func(s *Store) error { return s.Keeper().GatesRecorded(&gates.Results{}) }, qualityGateResults},
		{"FindingsChanged", func(s *Store) error { return s.Keeper().FindingsChanged(&review.Findings{}) }, reviewFindings},
		{"FindingsChanged(nil)", func(s *Store) error { return s.Keeper().FindingsChanged(nil) }, reviewFindings},
		{"ReviewSHARecorded", func(s *Store) error { return s.Keeper().ReviewSHARecorded("abc") }, reviewLastSHA},
		{"LoopStarted", func(s *Store) error { return s.Keeper().LoopStarted("abc") }, loopStartSHA},
		{"DiffSummaryChanged", func(s *Store) error { return s.Keeper().DiffSummaryChanged("1 file") }, loopDiffSummary},
		{"DiffSummaryChanged(\"\")", func(s *Store) error { return s.Keeper().DiffSummaryChanged("") }, loopDiffSummary},
		{"WriteTimeoutChanged", func(s *Store) error { return s.Keeper().WriteTimeoutChanged(at) }, writeHeartbeatTrigger},
		{"WriteTimeoutChanged(zero)", func(s *Store) error { return s.Keeper().WriteTimeoutChanged(time.Time{}) }, writeHeartbeatTrigger},
		{"PlanCollapsed", func(s *Store) error { return s.Keeper().PlanCollapsed([]byte("# Plan\n")) }, ralphdir.FixPlan},
		{"SessionStarted", func(s *Store) error { return s.Keeper().SessionStarted(at) }, ralphSession},
		{"SessionIDSaved", func(s *Store) error { return s.Keeper().SessionIDSaved("sess-1", at) }, claudeSessionID},
		{"FallbackSessionIDSaved", func(s *Store) error { return s.Keeper().FallbackSessionIDSaved("codex", "sess-1", at) }, fallbackSessionID("codex")},
		{"SessionReset", func(s *Store) error { return s.Keeper().SessionReset("test", 1, at) }, ralphSession},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// .ralph is a plain file: nothing under it can be written or
			// removed.
			root := filepath.Join(t.TempDir(), ".ralph")
			if err := os.WriteFile(root, nil, 0o644); err != nil {
				t.Fatal(err)
			}
			d := ralphdir.New(root, func(string) {})
			var warned []error
			err := tc.save(New(d, nil, func(err error) { warned = append(warned, err) }, false))
			if err == nil {
				t.Fatalf("%s = nil; the failed save was dropped", tc.name)
			}
			if len(warned) != 1 || warned[0] != err {
				t.Errorf("%s warned %v; want its error once", tc.name, warned)
			}
			want := "could not save " + d.Path(tc.file) + ": "
			if !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), "; ") {
				t.Errorf("%s = %q; want %q, the error and its consequence", tc.name, err, want+"...; ...")
			}
		})
	}
}

// Load creates a missing .exit_signals; when it cannot, that is one
// warning, apart from the error that stops the start.
func TestLoadReportsExitSignalsItCannotCreate(t *testing.T) {
	root := filepath.Join(t.TempDir(), ".ralph")
	if err := os.WriteFile(root, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	d := ralphdir.New(root, func(string) {})
	var warned []error
	New(d, nil, func(err error) { warned = append(warned, err) }, false).Load(time.Now())
	if len(warned) != 1 || !strings.HasPrefix(warned[0].Error(), "could not save "+d.Path(exitSignals)+": ") {
		t.Fatalf("Load warned %v; want the .exit_signals it could not create, once", warned)
	}
}

// Peek reads the kept state and changes nothing: a damaged file stays
// where it is and is named with what is wrong with it.
func TestPeekChangesNothing(t *testing.T) {
	d := newDir(t)
	now := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	files := map[string]string{
		ralphdir.CallCount:           "7\n",
		lastReset:                    "2030010203\n",
		ralphdir.CircuitBreakerState: "{not json",
		exitSignals:                  `{"test_only_loops": [], "done_signals": [1], "completion_indicators": []}`,
		qualityGateResults:           `{"overall_status": "pass", "mode": "warn", "custom_gates": []}`,
		reviewFindings:               "[]",
		reviewLastSHA:                "abc\n",
		ralphSession:                 `{"session_id": "s-1", "created_at": "2030-01-01T00:00:00+00:00", "last_used": "2030-01-01T00:00:00+00:00"}`,
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
	if k.Window.Count != 7 || k.Breaker.State != breaker.Closed || k.Gates == nil || k.ReviewSHA != "abc" || k.Session.SessionID != "s-1" || k.HaveBreaker {
		t.Errorf("Peek = %+v", k)
	}
	for _, name := range []string{ralphdir.CircuitBreakerState, reviewFindings} {
		if damaged[name] == nil {
			t.Errorf("damaged[%s] = nil; want what is wrong with it (damaged: %v)", name, damaged)
		}
	}
	if len(damaged) != 2 {
		t.Errorf("damaged = %v; want the breaker and the findings", damaged)
	}
}

// HaveBreaker tells a breaker read from its file from the fresh CLOSED
// state a missing or damaged file reads as, the same in Load and Peek.
func TestHaveBreaker(t *testing.T) {
	now := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, tc := range []struct {
		name, file string // file "": none
		want       bool
	}{
		{"missing", "", false},
		{"damaged", `{"state": "AJAR"}`, false},
		{"empty", "", false},
		{"open", `{"state": "OPEN", "reason": "stuck"}`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := newDir(t)
			if tc.file != "" || tc.name == "empty" {
				if err := os.WriteFile(d.Path(ralphdir.CircuitBreakerState), []byte(tc.file), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if k, _ := Peek(d, now); k.HaveBreaker != tc.want {
				t.Errorf("Peek: HaveBreaker = %v, want %v", k.HaveBreaker, tc.want)
			}
			k, err := New(d, nil, nil, false).Load(now)
			if err != nil {
				t.Fatal(err)
			}
			if k.HaveBreaker != tc.want {
				t.Errorf("Load: HaveBreaker = %v, want %v", k.HaveBreaker, tc.want)
			}
		})
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
