package engine

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ralphloop/ralph_loop/analysis"
	"github.com/ralphloop/ralph_loop/breaker"
	"github.com/ralphloop/ralph_loop/internal/agentcall"
	"github.com/ralphloop/ralph_loop/internal/config"
	"github.com/ralphloop/ralph_loop/internal/observe"
	"github.com/ralphloop/ralph_loop/internal/ralphdir"
	"github.com/ralphloop/ralph_loop/internal/store"
	"github.com/ralphloop/ralph_loop/ratelimit"
)

// changeTypes records the name of every state change handed to it (the
// ones the test looks for).
type changeTypes struct {
	observe.Keeper
	seen map[string]int
}

func (c *changeTypes) WindowChanged(ratelimit.Window) error { c.seen["WindowChanged"]++; return nil }
func (c *changeTypes) BreakerChecked(breaker.State, *breaker.Transition, bool) error {
	c.seen["BreakerChecked"]++
	return nil
}
func (c *changeTypes) BreakerRecorded(breaker.State, *breaker.Transition) error {
	c.seen["BreakerRecorded"]++
	return nil
}
func (c *changeTypes) AnalysisChanged(*analysis.ResponseAnalysis) error {
	c.seen["AnalysisChanged"]++
	return nil
}
func (c *changeTypes) ExitSignalsChanged(analysis.ExitSignals) error {
	c.seen["ExitSignalsChanged"]++
	return nil
}
func (c *changeTypes) ErrorHistoryChanged(analysis.ErrorHistory) error {
	c.seen["ErrorHistoryChanged"]++
	return nil
}
func (c *changeTypes) LoopStarted(string) error               { c.seen["LoopStarted"]++; return nil }
func (c *changeTypes) SessionStarted(time.Time) error         { c.seen["SessionStarted"]++; return nil }
func (c *changeTypes) SessionTouched(time.Time) error         { c.seen["SessionTouched"]++; return nil }
func (c *changeTypes) SessionIDSaved(string, time.Time) error { c.seen["SessionIDSaved"]++; return nil }

// runTwoWith runs two loops with k as the keeper (no state store saves
// the changes) and returns the run.
func runTwoWith(t *testing.T, k observe.Keeper) *obsRun {
	r := newObsRun(t)
	r.reply = func(n int) string { return claudeReply(n, 0.01, 10, 10, 0, 0) }
	env := map[string]string{"LOOP_DELAY": "0", "MAX_LOOPS": "2", "CLAUDE_TIMEOUT_MINUTES": "15"}
	c, _, err := config.Load(nil, true, func(k string) (string, bool) { v, ok := env[k]; return v, ok }, r.proj, os.ReadFile)
	if err != nil {
		t.Fatalf("config.Load: %v", err)
	}
	st := store.New(r.dir, nil, nil, false)
	Run(*c, Deps{
		Bus: observe.New(r.now, "run-1"), Keeper: k, Dir: r.dir, Project: projectOf(*c, r.dir), Repo: r.repo, State: st, Logs: st, Now: r.now, Agent: agentcall.Agent{Start: r.agent, Logs: st},
		LookPath: func(string) (string, error) { return "/bin/true", nil },
		Stopper:  NewStopper(context.Background(), false, r.now), Version: "test",
	})
	return r
}

// The engine writes no state file itself: with a keeper that is no state
// store, a run leaves none of them in .ralph/ (only the agent's logs,
// opened through Logs, and the empty .exit_signals start-up creates while
// loading), and every change reaches that keeper instead.
func TestEngineRecordsChangesAndWritesNoState(t *testing.T) {
	t.Parallel()
	rec := &changeTypes{Keeper: observe.Discard, seen: map[string]int{}}
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
	for _, want := range []string{
		"WindowChanged", "BreakerChecked", "BreakerRecorded", "AnalysisChanged", "ExitSignalsChanged",
		"ErrorHistoryChanged", "LoopStarted", "SessionStarted", "SessionTouched", "SessionIDSaved",
	} {
		if rec.seen[want] == 0 {
			t.Errorf("no %s recorded; got %v", want, rec.seen)
		}
	}
}
