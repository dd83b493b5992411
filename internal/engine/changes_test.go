package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/ralphloop/ralph_loop/breaker"
	"github.com/ralphloop/ralph_loop/internal/agentcall"
	"github.com/ralphloop/ralph_loop/internal/config"
	"github.com/ralphloop/ralph_loop/internal/observe"
	"github.com/ralphloop/ralph_loop/internal/ralphdir"
	"github.com/ralphloop/ralph_loop/internal/store"
)

// savedValues records every kept state handed to it, saving nothing.
type savedValues struct {
	Keeper
	saved []store.Kept
}

func (c *savedValues) Save(k store.Kept) error { c.saved = append(c.saved, k); return nil }

// runTwoWith runs two loops with k as the keeper (no state store saves
// the changes) and returns the run.
func runTwoWith(t *testing.T, k Keeper) *obsRun {
	r := newObsRun(t)
	r.reply = func(n int) string { return claudeReply(n, 0.01, 10, 10, 0, 0) }
	env := map[string]string{"LOOP_DELAY": "0", "MAX_LOOPS": "2", "CLAUDE_TIMEOUT_MINUTES": "15"}
	c, _, err := config.Load(nil, true, func(k string) (string, bool) { v, ok := env[k]; return v, ok }, r.proj, os.ReadFile)
	if err != nil {
		t.Fatalf("config.Load: %v", err)
	}
	st := store.New(r.dir, nil, nil, false)
	r.res = Run(*c, Deps{
		Bus: observe.New(r.now, "run-1"), Keeper: k, Dir: r.dir, Project: projectOf(*c, r.dir), Repo: r.repo, State: st, Logs: st, Now: r.now, Agent: agentcall.Agent{Start: r.agent, Logs: st},
		LookPath: func(string) (string, error) { return "/bin/true", nil },
		Stopper:  NewStopper(context.Background(), false, r.now), Version: "test",
	})
	return r
}

// The engine writes no state file itself: with a keeper that is no state
// store, a run leaves none of them in .ralph/ (only the agent's logs,
// opened through Logs, and the empty .exit_signals start-up creates while
// loading), and the kept state reaches that keeper whole instead: each
// part, the breaker's moves and the session steps.
func TestEngineSavesKeptAndWritesNoState(t *testing.T) {
	t.Parallel()
	rec := &savedValues{Keeper: Discard}
	r := runTwoWith(t, rec)
	if r.calls != 2 {
		t.Fatalf("agent calls = %d, want 2", r.calls)
	}

	for _, name := range []string{
		ralphdir.CallCount, ".last_reset", ralphdir.ResponseAnalysis, ".last_output_length",
		".loop_start_sha", ".loop_diff_summary", ".claude_session_id", ".ralph_session",
		".ralph_session_history", ralphdir.CircuitBreakerState, ".circuit_breaker_history",
		"logs/.error_history",
	} {
		if _, err := os.Stat(filepath.Join(r.dir.Root(), name)); err == nil {
			t.Errorf("%s was written with no state store as the keeper", name)
		}
	}
	if len(rec.saved) == 0 {
		t.Fatal("nothing saved")
	}
	last := rec.saved[len(rec.saved)-1]
	if last.Window.Count != 2 || last.Window.Hour == "" {
		t.Errorf("last saved window = %+v, want 2 calls in an hour", last.Window)
	}
	if last.Breaker.State != breaker.Closed || last.Analysis == nil || last.Analysis.LoopNumber != 2 {
		t.Errorf("last saved state = %+v, want a closed breaker and loop 2's analysis", last)
	}
	steps := map[store.SessionStepKind]int{}
	for _, k := range rec.saved {
		for _, st := range k.SessionSteps {
			steps[st.Kind]++
		}
	}
	if steps[store.SessionStart] != 1 || steps[store.SessionTouch] != 2 || steps[store.SessionSaveID] == 0 {
		t.Errorf("session steps = %v, want one start, two touches and the saved ids", steps)
	}
	if rec.saved[0].Breaker.State != "" || len(rec.saved[0].SessionSteps) != 1 {
		t.Errorf("the first save, before the state is loaded, = %+v; want the session's start only", rec.saved[0])
	}
}

// fullDisk fails every save once a call's analysis is to be saved, as a
// full disk does.
type fullDisk struct {
	Keeper
	failed int
}

func (f *fullDisk) Save(k store.Kept) error {
	if k.Analysis == nil && f.failed == 0 {
		return nil
	}
	f.failed++
	return fmt.Errorf("could not save .ralph/.response_analysis: %w; the exit checks see the previous call's analysis",
		&os.PathError{Op: "write", Path: ".response_analysis", Err: syscall.ENOSPC})
}

// A save that fails for a full disk stops the run before its next call,
// with the failure guard's disk_full reason and exit code, and says which
// file and what to do; the loop does not work on with state it cannot keep.
func TestFullDiskSaveStopsBeforeTheNextCall(t *testing.T) {
	t.Parallel()
	k := &fullDisk{Keeper: Discard}
	r := runTwoWith(t, k)
	if r.calls != 1 {
		t.Errorf("agent calls = %d, want 1: the run went on after the state could not be saved", r.calls)
	}
	if r.res.Code != ExitFailed || r.res.Reason != "disk_full" || k.failed == 0 {
		t.Errorf("result = %d %q (failed saves %d), want %d disk_full", r.res.Code, r.res.Reason, k.failed, ExitFailed)
	}
	if s := r.res.Stop.Sentence(); !strings.Contains(s, ".response_analysis") || !strings.Contains(s, "no space left on device") || !strings.Contains(s, "free disk space") {
		t.Errorf("stop = %q, want the file, the error and the fix", s)
	}
}
