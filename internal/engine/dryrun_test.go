package engine_test

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/ralphloop/ralph_loop/internal/agentcall"
	"github.com/ralphloop/ralph_loop/internal/config"
	"github.com/ralphloop/ralph_loop/internal/engine"
	"github.com/ralphloop/ralph_loop/internal/events"
	"github.com/ralphloop/ralph_loop/internal/observe"
	"github.com/ralphloop/ralph_loop/internal/ralphdir"
	"github.com/ralphloop/ralph_loop/internal/store"
	"github.com/ralphloop/ralph_loop/ratelimit"
)

// changeCounter counts the saves of the kept state a dry run's start-up
// checks make.
type changeCounter struct {
	engine.Keeper
	n int
}

func (c *changeCounter) Save(store.Kept) error { c.n++; return nil }

// dryRun previews the next call of h's project with counter as the keeper.
func (h *ctlHarness) dryRun(s config.Config, counter *changeCounter) engine.Preview {
	h.t.Helper()
	bus := observe.New(time.Now, events.ISOTime(time.Now()))
	st := store.New(h.rd, func(string, string) {}, nil, false)
	p, err := engine.DryRun(s, engine.Deps{
		Bus: bus, Keeper: counter, Dir: h.rd, Project: h.project(s), Repo: h.repo, Agent: agentcall.Agent{Logs: st}, State: st, Logs: st, Now: time.Now,
		LookPath: func(string) (string, error) { return "/bin/true", nil },
		Env:      []string{"HOME=" + h.dir, "PATH=/usr/bin:/bin"},
		Stopper:  h.stopper, Version: "test",
	})
	if err != nil {
		h.t.Fatalf("DryRun: %v", err)
	}
	return p
}

// After the hour's last call, the preview shows the rate-limit wait until
// the next hour, and a pause after it; the call itself would still come.
// The dry run hands its changes to its keeper only (no state store), and
// never calls the agent.
func TestDryRunWaits(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		h := newCtlHarness(t, false, func(int) ctlReply { return ctlReply{Text: "Working."} })
		env := map[string]string{"MAX_CALLS_PER_HOUR": "1", "MAX_LOOPS": "1"}
		h.run(h.settings(env))
		if h.callCount() != 1 {
			t.Fatalf("calls = %d, want 1", h.callCount())
		}
		if err := h.rd.WriteFile(ralphdir.PauseFile, []byte("paused\n")); err != nil {
			t.Fatal(err)
		}
		counter := &changeCounter{Keeper: engine.Discard}
		p := h.dryRun(h.settings(env), counter)
		if h.callCount() != 1 {
			t.Fatalf("the dry run called the agent: calls = %d", h.callCount())
		}
		if counter.n == 0 {
			t.Errorf("no change handed to the keeper: the start-up checks did not run")
		}
		checkWaitingPreview(t, h, p)
	})
}

// checkWaitingPreview checks the preview of TestDryRunWaits.
func checkWaitingPreview(t *testing.T, h *ctlHarness, p engine.Preview) {
	t.Helper()
	if len(p.Waits) != 2 || p.Waits[0].Kind != "rate_limit" || p.Waits[1].Kind != "pause" {
		t.Fatalf("waits = %+v, want rate_limit then pause", p.Waits)
	}
	next := ratelimit.NextReset(time.Now()) // the top of the next local hour
	if !p.Waits[0].Until.Equal(next) {
		t.Errorf("rate-limit wait until %v, want %v", p.Waits[0].Until, next)
	}
	if !p.WouldCall || p.Calls != 1 || p.MaxCalls != 1 || p.Loop != 1 || !p.Paused {
		t.Errorf("preview = %+v", p)
	}
	if p.NextTask != "- [ ] Task A" || p.TasksLeft != 2 || p.TasksTotal != 2 {
		t.Errorf("next task %q, %d of %d left", p.NextTask, p.TasksLeft, p.TasksTotal)
	}
	if p.SessionID == "" {
		t.Errorf("no session to resume after a call that saved one")
	}
	if len(p.Argv) == 0 || p.Argv[0] != "claude" || p.Dir != h.dir || p.Context == "" {
		t.Errorf("call: argv %q in %s, context %q", p.Argv, p.Dir, p.Context)
	}
}
