package readmodel

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ralphloop/ralph_loop/analysis"
	"github.com/ralphloop/ralph_loop/breaker"
	"github.com/ralphloop/ralph_loop/internal/engine"
	"github.com/ralphloop/ralph_loop/internal/events"
	"github.com/ralphloop/ralph_loop/internal/observe"
	"github.com/ralphloop/ralph_loop/internal/ralphdir"
	"github.com/ralphloop/ralph_loop/internal/store"
	"github.com/ralphloop/ralph_loop/ratelimit"
)

var liveNow = time.Date(2026, 11, 27, 17, 30, 0, 0, time.UTC)

func newFolder(t *testing.T) Files {
	t.Helper()
	root := filepath.Join(t.TempDir(), ".ralph")
	if err := os.MkdirAll(filepath.Join(root, "logs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, ralphdir.FixPlan), []byte("- [x] one\n- [ ] two\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return Files{Name: "p", Dir: ralphdir.New(root, func(string) {}), MaxCalls: 100,
		Now: func() time.Time { return liveNow }, Text: func(e events.Event) string { return string(e.Type) }}
}

// runSome is a loop's first iteration and wait, told on bus and kept by k;
// load is the engine's Load of the state, after the session's start.
func runSome(t *testing.T, bus *observe.Fan, k engine.Keeper, load func()) {
	t.Helper()
	snap := events.Snapshot{Loop: 1, CallsThisHour: 1, MaxCalls: 100, TasksCompleted: 1, TasksTotal: 2}
	at := func(action string) events.Moment {
		return events.Moment{Snapshot: snap, Action: action, Status: "running"}
	}
	bus.RunStarted(at("starting"), events.Start{Driver: "claude"})
	k.Save(store.Kept{SessionSteps: []store.SessionStep{{Kind: store.SessionStart, At: liveNow}}})
	load()
	bus.CallStarted(at("executing"))
	bus.CallProgress(events.Moment{Snapshot: snap}, events.AgentWorking{})
	var ra analysis.ResponseAnalysis
	ra.Analysis.WorkSummary, ra.Analysis.TasksCompletedThisLoop = "ticked one", 1
	k.Save(store.Kept{Window: ratelimit.Window{Hour: ratelimit.HourKey(liveNow), Count: 1},
		Breaker: breaker.State{State: "CLOSED", LastChange: liveNow, ConsecutiveNoProgress: 1}, Analysis: &ra})
	bus.CallEnded(at("completed"), events.Call{Outcome: events.IterationCompleted,
		Iteration: &events.Iteration{Outcome: "success", WallMS: 3000, FilesChanged: 2, TasksTicked: []string{"one"}}})
	bus.WaitStarted(at("waiting"), events.Wait{Kind: "loop_delay", Until: liveNow.Add(time.Minute)})
}

func pageJSON(t *testing.T, src interface{ Snapshot() any }) string {
	t.Helper()
	b, err := json.Marshal(src.Snapshot())
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The in-process dashboard's View, kept from the bus and the store's
// keeper, is the one --serve reads from the files the store writes from
// the same reports and changes: same bytes.
func TestLiveMatchesFiles(t *testing.T) {
	f := newFolder(t)
	bus := observe.New(func() time.Time { return liveNow }, "run-1")
	bus.Add(store.Sinks(f.Dir, nil, nil)...)
	st := store.New(f.Dir, func(string, string) {}, nil, false)
	lock, err := f.Dir.Lock() // the loop runs
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Unlock()
	live, k := Watch(bus, st, f)
	runSome(t, bus, k, func() {
		if _, err := st.Load(liveNow); err != nil {
			t.Fatal(err)
		}
	})
	got, want := pageJSON(t, live), pageJSON(t, FromFiles(f))
	if got != want {
		t.Fatalf("live snapshot differs from the files':\nlive:  %s\nfiles: %s", got, want)
	}
	for _, part := range []string{`"loop":1`, `"ticked one"`, `"state":"CLOSED"`, `"this_hour":1`, `"waiting_for":"loop_delay"`, `"tasks_ticked":["one"]`} {
		if !strings.Contains(got, part) {
			t.Errorf("snapshot lacks %s: %s", part, got)
		}
	}
}

// The in-process dashboard reads no state file and no event log after it
// starts: what the files say behind its back (or their absence) never
// shows; what the loop told its bus and its keeper does.
func TestLiveReadsNoStateFile(t *testing.T) {
	f := newFolder(t)
	bus := observe.New(func() time.Time { return liveNow }, "run-1")
	live, k := Watch(bus, engine.Discard, f)
	// Behind its back: every state file and the event log say something
	// else, or nothing, or cannot be read.
	for name, content := range map[string]string{
		ralphdir.Status:              `{"loop_count":999,"status":"halted","exit_reason":"planted"}`,
		ralphdir.EventsLog:           `{"type":"run_finished","run_id":"planted","ts":"2026-11-27T17:00:00Z"}` + "\n",
		ralphdir.CircuitBreakerState: `{"state":"OPEN","reason":"planted"}`,
		ralphdir.ResponseAnalysis:    `{"analysis":{"work_summary":"planted"}}`,
		ralphdir.CallCount:           "77\n",
		".last_reset":                ratelimit.HourKey(liveNow) + "\n",
	} {
		if err := os.WriteFile(f.Dir.Path(name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	runSome(t, bus, k, func() {})
	got := pageJSON(t, live)
	if strings.Contains(got, "planted") || strings.Contains(got, "999") || strings.Contains(got, `"this_hour":77`) {
		t.Fatalf("the live snapshot read the files again: %s", got)
	}
	for _, part := range []string{`"loop":1`, `"run_id":"run-1"`, `"ticked one"`, `"state":"CLOSED"`, `"this_hour":1`} {
		if !strings.Contains(got, part) {
			t.Errorf("snapshot lacks %s: %s", part, got)
		}
	}
	// The plan is the agent's: a change of it shows.
	if err := os.WriteFile(f.Dir.Path(ralphdir.FixPlan), []byte("- [x] one\n- [x] two\n- [ ] three\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := pageJSON(t, live); !strings.Contains(got, `"task":"- [ ] three"`) || !strings.Contains(got, `"plan_total":3`) {
		t.Errorf("the plan's change does not show: %s", got)
	}
}

// A page reads the live View while the loop reports (go test -race).
func TestLiveWhileTheLoopRuns(t *testing.T) {
	f := newFolder(t)
	bus := observe.New(func() time.Time { return liveNow }, "run-1")
	live, k := Watch(bus, engine.Discard, f)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 20 { // 20 runs of one loop each
			runSome(t, bus, k, func() {})
		}
	}()
	for {
		select {
		case <-done:
			// Every run_started starts a new run: the last shows its loop,
			// and the last events are the page's 30.
			if got := pageJSON(t, live); !strings.Contains(got, `"loops_total":1`) || strings.Count(got, `"ts":`) != pageEvents {
				t.Errorf("after 20 runs: %s", got)
			}
			return
		default:
			live.Stamps()
			pageJSON(t, live)
		}
	}
}
