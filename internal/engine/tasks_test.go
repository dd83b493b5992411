package engine_test

import (
	"context"
	"os"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/ralphloop/ralph_loop/internal/engine"
	"github.com/ralphloop/ralph_loop/internal/events"
	"github.com/ralphloop/ralph_loop/internal/ralphdir"
)

// fakeTasks stands in for the trackers: its Next adds one tracked line to
// the plan (once) and gives its block for the context while that line is
// the next task; it records what Done and End are told.
type fakeTasks struct {
	rd *ralphdir.Dir

	mu    sync.Mutex
	nexts int
	dones []fakeDone
	ends  []bool
}

type fakeDone struct {
	loop   int
	ticked []string
	green  bool
	commit string
}

func (f *fakeTasks) Next(context.Context) (string, []events.Task) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.nexts++
	plan, _, _ := f.rd.ReadFile(ralphdir.FixPlan)
	var news []events.Task
	if !strings.Contains(string(plan), "[bd-1]") {
		plan = append(plan, "\n## Tasks from beads\n- [ ] [bd-1] One\n"...)
		_ = f.rd.WriteFile(ralphdir.FixPlan, plan)
		news = append(news, events.Task{Kind: events.TaskImported, Tracker: "beads", Keys: []string{"bd-1"}})
	}
	if strings.Contains(string(plan), "- [ ] Task") || !strings.Contains(string(plan), "- [ ] [bd-1]") {
		return "", news
	}
	return "TRACKER BRIEF bd-1", news
}

func (f *fakeTasks) Done(_ context.Context, loop int, ticked []string, green bool, commit string) []events.Task {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.dones = append(f.dones, fakeDone{loop, ticked, green, commit})
	for _, t := range ticked {
		if strings.HasPrefix(t, "[bd-1]") && green {
			return []events.Task{{Kind: events.TaskClosed, Tracker: "beads", Keys: []string{"bd-1"}, Note: "closed in beads"}}
		}
	}
	return nil
}

func (f *fakeTasks) End(_ context.Context, _ int, green bool, _ string) []events.Task {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.ends = append(f.ends, green)
	return nil
}

// The trackers' seam: asked before every call (the plan is read after
// it, so its new line counts toward completion), its block in the context
// of the call whose next task is the tracked one only, told of each
// call's ticks with the gates' verdict, told once of the end; what it
// says happened is on the event log.
func TestTasksSeam(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		env   map[string]string
		green bool
	}{
		{"no gates", map[string]string{}, true},
		{"a failing gate", map[string]string{"TEST_COMMAND": "test -f absent", "QUALITY_GATE_MODE": "warn"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				h := newCtlHarness(t, false, func(int) ctlReply { return ctlReply{Text: "Did a task.", Touch: "src/app.txt", Check: true} })
				h.rd.WriteFile(ralphdir.FixPlan, []byte("# Fix Plan\n- [ ] Task A\n"))
				ft := &fakeTasks{rd: h.rd}
				h.tasks = ft
				env := map[string]string{"LOOP_DELAY": "0", "MAX_LOOPS": "5"}
				for k, v := range tc.env {
					env[k] = v
				}
				r := h.run(h.settings(env))
				h.checkEnd(r, engine.ExitComplete, "plan_complete", "completed")
				if h.callCount() != 2 {
					t.Fatalf("calls %d, want 2 (Task A, then bd-1)", h.callCount())
				}
				if ft.nexts != 2 {
					t.Errorf("Next asked %d times, want 2 (before each call; the second call's ticks end the run)", ft.nexts)
				}
				first, second := strings.Join(h.argvs[0], " "), strings.Join(h.argvs[1], " ")
				if strings.Contains(first, "TRACKER BRIEF") || !strings.Contains(second, "TRACKER BRIEF bd-1") {
					t.Errorf("the block went to the wrong call:\n1: %s\n2: %s", first, second)
				}
				if len(ft.dones) != 2 || strings.Join(ft.dones[0].ticked, "|") != "Task A" || strings.Join(ft.dones[1].ticked, "|") != "[bd-1] One" ||
					ft.dones[1].green != tc.green || ft.dones[1].loop != 2 || ft.dones[1].commit == "" {
					t.Errorf("Done told %+v", ft.dones)
				}
				if len(ft.ends) != 1 || ft.ends[0] != tc.green {
					t.Errorf("End told %v, want [%v]", ft.ends, tc.green)
				}
				if got := h.rec.ofType(events.TaskImported); len(got) != 1 || got[0].Tracker != "beads" || strings.Join(got[0].Tasks, "") != "bd-1" || got[0].Loop != 1 {
					t.Errorf("task_imported events %+v", got)
				}
				if got := h.rec.ofType(events.TaskClosed); (len(got) == 1) != tc.green {
					t.Errorf("task_closed events %+v", got)
				}
				if !h.rec.hasLine("📥 Imported 1 task from beads into the plan: bd-1") {
					t.Errorf("no import line:\n%s", h.rec.logText())
				}
			})
		})
	}
}

// stopTasks is a tracker whose sync a stop signal interrupts.
type stopTasks struct {
	fakeTasks
	stop func()
}

func (s *stopTasks) Next(ctx context.Context) (string, []events.Task) {
	s.stop()
	<-ctx.Done()
	return "", nil
}

// A stop during the trackers' sync ends the run there: no iteration
// starts, no call is made, and the trackers' end still runs.
func TestTasksStoppedDuringSync(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		h := newCtlHarness(t, false, func(int) ctlReply { return ctlReply{Text: "Did a task.", Touch: "src/app.txt", Check: true} })
		h.rd.WriteFile(ralphdir.FixPlan, []byte("# Fix Plan\n- [ ] Task A\n"))
		st := &stopTasks{fakeTasks: fakeTasks{rd: h.rd}, stop: func() { h.stopper.Signal(os.Interrupt) }}
		h.tasks = st
		r := h.run(h.settings(map[string]string{"LOOP_DELAY": "0", "MAX_LOOPS": "5"}))
		if r.Action != "interrupted" || h.callCount() != 0 {
			t.Fatalf("result %+v after %d calls, want interrupted before any", r, h.callCount())
		}
		if got := h.rec.ofType(events.IterationStarted); len(got) != 0 {
			t.Errorf("an iteration started after the stop: %+v", got)
		}
		if len(st.ends) != 1 {
			t.Errorf("End told %v, want once", st.ends)
		}
	})
}
