//go:build unix

package store

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ralphloop/ralph_loop/analysis"
	"github.com/ralphloop/ralph_loop/breaker"
	"github.com/ralphloop/ralph_loop/internal/gates"
	"github.com/ralphloop/ralph_loop/internal/ralphdir"
	"github.com/ralphloop/ralph_loop/internal/review"
	"github.com/ralphloop/ralph_loop/ratelimit"
)

var saveAt = time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)

// everyPart is a kept state with every part set.
func everyPart() Kept {
	return Kept{
		Window:       ratelimit.Window{Count: 3, Hour: "2030010203"},
		Breaker:      breaker.State{State: breaker.Closed, LastChange: saveAt},
		Analysis:     &analysis.ResponseAnalysis{LoopNumber: 1},
		ExitSignals:  analysis.ExitSignals{DoneSignals: []int{1}},
		ErrorHistory: analysis.ErrorHistory{Loops: []analysis.ErrorHistoryEntry{{Loop: 1, Errors: []string{"boom"}}}},
		OutputLength: 42,
		Gates:        &gates.Results{},
		Findings:     &review.Findings{},
		ReviewSHA:    "abc",
		LoopStartSHA: "def",
		DiffSummary:  "1 file",
		WriteTimeout: saveAt,
	}
}

// loaded is the store of d after Load.
func loaded(t *testing.T, d *ralphdir.Dir) *Store {
	t.Helper()
	s := New(d, nil, nil, false)
	if _, err := s.Load(saveAt); err != nil {
		t.Fatal(err)
	}
	return s
}

// inode is the inode of name under d (0: none): an atomic write makes a
// new one.
func inode(d *ralphdir.Dir, name string) uint64 {
	fi, err := os.Stat(d.Path(name))
	if err != nil {
		return 0
	}
	return fi.Sys().(*syscall.Stat_t).Ino
}

// Save writes every part to its own file, removes the file of a part that
// ends, and writes nothing again for a part that did not change.
func TestSaveWritesWhatChanged(t *testing.T) {
	d := newDir(t)
	s := loaded(t, d)
	k := everyPart()
	if err := s.Save(k); err != nil {
		t.Fatal(err)
	}
	files := []string{ralphdir.CallCount, lastReset, ralphdir.CircuitBreakerState, circuitBreakerHistory,
		ralphdir.ResponseAnalysis, exitSignals, errorHistoryFile, lastOutputLength, qualityGateResults,
		reviewFindings, reviewLastSHA, loopStartSHA, loopDiffSummary, writeHeartbeatTrigger}
	before := map[string]uint64{}
	for _, f := range files {
		if before[f] = inode(d, f); before[f] == 0 {
			t.Errorf("Save wrote no %s", f)
		}
	}
	if b, _ := os.ReadFile(d.Path(loopStartSHA)); string(b) != "def\n" {
		t.Errorf("%s = %q", loopStartSHA, b)
	}

	k.OutputLength = 43
	if err := s.Save(k); err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if changed := inode(d, f) != before[f]; changed != (f == lastOutputLength) {
			t.Errorf("%s rewritten = %v after only the output length changed", f, changed)
		}
	}

	k.Analysis, k.Findings, k.DiffSummary, k.WriteTimeout = nil, nil, "", time.Time{}
	if err := s.Save(k); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{ralphdir.ResponseAnalysis, reviewFindings, loopDiffSummary, writeHeartbeatTrigger} {
		if inode(d, f) != 0 {
			t.Errorf("Save left %s after its part ended", f)
		}
	}
}

// Before Load, only the session steps are saved: the rest is not the
// engine's yet. Load's value counts as saved.
func TestSaveBeforeAndAfterLoad(t *testing.T) {
	d := newDir(t)
	s := New(d, nil, nil, false)
	k := everyPart()
	k.SessionSteps = []SessionStep{{Kind: SessionStart, At: saveAt}}
	if err := s.Save(k); err != nil {
		t.Fatal(err)
	}
	if inode(d, ralphSession) == 0 {
		t.Error("the session's start was not saved before Load")
	}
	for _, f := range []string{ralphdir.CallCount, ralphdir.CircuitBreakerState, loopStartSHA, writeHeartbeatTrigger} {
		if inode(d, f) != 0 {
			t.Errorf("%s written before Load", f)
		}
	}
	os.WriteFile(d.Path(lastOutputLength), []byte("7\n"), 0o644)
	v, err := s.Load(saveAt)
	if err != nil {
		t.Fatal(err)
	}
	was := inode(d, lastOutputLength)
	if err := s.Save(v); err != nil {
		t.Fatal(err)
	}
	if inode(d, lastOutputLength) != was {
		t.Error("a part as Load read it was written again")
	}
	if inode(d, circuitBreakerHistory) == 0 || inode(d, ralphdir.CircuitBreakerState) == 0 {
		t.Error("the first Save after Load made no breaker history or state (the breaker was never kept)")
	}
}

// The breaker's moves are appended to its history, each once; the session
// steps are carried out in order, a reset's emptying of .exit_signals and
// .response_analysis followed without writing them again.
func TestSaveStepsAndMoves(t *testing.T) {
	d := newDir(t)
	s := loaded(t, d)
	k := everyPart()
	tr := breaker.Transition{From: breaker.Closed, To: breaker.Open, Reason: "no progress", Loop: 2, At: saveAt}
	k.BreakerMoves = []breaker.Transition{tr}
	k.SessionSteps = []SessionStep{{Kind: SessionSaveID, ID: "sess-1", At: saveAt}, {Kind: SessionSaveID, ID: "fb-1", Driver: "codex", At: saveAt}}
	if err := s.Save(k); err != nil {
		t.Fatal(err)
	}
	k.BreakerMoves, k.SessionSteps = nil, nil
	if err := s.Save(k); err != nil {
		t.Fatal(err)
	}
	var hist []json.RawMessage
	b, _ := os.ReadFile(d.Path(circuitBreakerHistory))
	if err := json.Unmarshal(b, &hist); err != nil || len(hist) != 1 {
		t.Errorf("history = %s (%v), want the one move", b, err)
	}
	for _, f := range []string{claudeSessionID, fallbackSessionID("codex")} {
		if inode(d, f) == 0 {
			t.Errorf("no %s", f)
		}
	}

	k.SessionSteps = []SessionStep{{Kind: SessionReset, Reason: "test", Loop: 2, At: saveAt}}
	k.Analysis, k.ExitSignals = nil, analysis.ExitSignals{}
	if err := s.Save(k); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(d.Path(exitSignals)); string(b) != emptyExitSignals {
		t.Errorf(".exit_signals = %q after the reset, want the bash loop's empty one-liner", b)
	}
	if inode(d, claudeSessionID) != 0 || inode(d, ralphdir.ResponseAnalysis) != 0 {
		t.Error("the reset left the session id or the analysis")
	}
}

// A save that fails is never dropped: Save returns every part's failure,
// each one line that names the file and says what the failure means, and
// warns of none (the engine decides).
func TestEveryFailedSaveIsReported(t *testing.T) {
	// .ralph is a plain file: nothing under it can be written or removed.
	root := filepath.Join(t.TempDir(), ".ralph")
	if err := os.WriteFile(root, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	d := ralphdir.New(root, func(string) {})
	var warned []error
	s := New(d, nil, func(err error) { warned = append(warned, err) }, false)
	s.loaded = true // as if Load had read nothing
	k := everyPart()
	k.SessionSteps = []SessionStep{{Kind: SessionStart, At: saveAt}, {Kind: SessionSaveID, ID: "sess-1", At: saveAt},
		{Kind: SessionSaveID, ID: "fb-1", Driver: "codex", At: saveAt}, {Kind: SessionTouch, At: saveAt}, {Kind: SessionReset, At: saveAt}}
	k.BreakerMoves = []breaker.Transition{{From: breaker.Closed, To: breaker.Open, At: saveAt}}
	err := s.Save(k)
	if err == nil {
		t.Fatal("Save = nil; the failed saves were dropped")
	}
	if len(warned) != 0 {
		t.Errorf("Save warned %v; the engine decides", warned)
	}
	errs := err.(interface{ Unwrap() []error }).Unwrap()
	for _, name := range []string{ralphSession, claudeSessionID, fallbackSessionID("codex"), ralphdir.CallCount,
		ralphdir.CircuitBreakerState, errorHistoryFile, lastOutputLength, loopDiffSummary, loopStartSHA,
		writeHeartbeatTrigger, qualityGateResults, ralphdir.ResponseAnalysis, exitSignals, reviewLastSHA, reviewFindings} {
		want := "could not save " + d.Path(name) + ": "
		found := false
		for _, e := range errs {
			if strings.HasPrefix(e.Error(), want) && strings.Contains(e.Error(), "; ") {
				found = true
			}
		}
		if !found {
			t.Errorf("no %q...; ... among %q", want, errs)
		}
	}
	for _, edit := range []PlanEdit{PlanCollapsed, PlanUnticked, PlanSetAside} {
		if err := s.WritePlan([]byte("# Plan\n"), edit); err == nil || !strings.HasPrefix(err.Error(), "could not save "+d.Path(ralphdir.FixPlan)+": ") {
			t.Errorf("WritePlan(%d) = %v", edit, err)
		}
	}
}

// The exit signals are saved after every call that recorded them, even
// unchanged, as the bash loop writes them: the one-liner Load created
// takes this loop's spelling then, and not before.
func TestSaveExitSignalsAfterEveryUpdate(t *testing.T) {
	d := newDir(t)
	s := New(d, nil, nil, false)
	v, err := s.Load(saveAt)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Save(v); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(d.Path(exitSignals)); string(b) != emptyExitSignals {
		t.Fatalf(".exit_signals = %q before any call, want the one-liner Load created", b)
	}
	v.ExitSignalsUpdates++
	if err := s.Save(v); err != nil {
		t.Fatal(err)
	}
	want, _ := v.ExitSignals.Marshal()
	if b, _ := os.ReadFile(d.Path(exitSignals)); string(b) != string(want) {
		t.Errorf(".exit_signals = %q after a call recorded them, want %q", b, want)
	}
}

// The output length is saved after every analysis that set it, even
// unchanged, as the bash loop writes it: a zero-length reply leaves a
// "0" where there was no file (Load read the missing file as 0).
func TestSaveOutputLengthAfterEveryUpdate(t *testing.T) {
	d := newDir(t)
	s := New(d, nil, nil, false)
	v, err := s.Load(saveAt)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Save(v); err != nil {
		t.Fatal(err)
	}
	if d.Exists(lastOutputLength) {
		t.Fatalf("%s written before any analysis", lastOutputLength)
	}
	v.OutputLength = 0
	v.OutputLengthUpdates++
	if err := s.Save(v); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(d.Path(lastOutputLength)); string(b) != "0\n" {
		t.Errorf("%s = %q after a zero-length reply's analysis, want %q", lastOutputLength, b, "0\n")
	}
}
