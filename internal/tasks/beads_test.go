package tasks

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ralphloop/ralph_loop/internal/events"
	"github.com/ralphloop/ralph_loop/internal/faketracker"
	"github.com/ralphloop/ralph_loop/internal/fixplan"
)

const localPlan = "# Fix plan\n\n## Now\n- [ ] a local task   \n- [x] done locally\n\n"

// Both of bd's output shapes, the bare array and the schema_version
// envelope, import the same lines, in the plan's own section; every byte
// of the plan outside it stays as it was, and the command is bd ready's.
func TestBeadsImportBothShapes(t *testing.T) {
	t.Parallel()
	for _, envelope := range []bool{false, true} {
		w := newWorld(t, faketracker.State{Beads: faketracker.Beads{Envelope: envelope, Issues: []faketracker.Bead{
			bead("bd-a1", "Fix the login\nredirect"), {ID: "bd-b2", Title: "Urgent", Status: "open", Priority: 0},
			{ID: "bd-c3", Title: "Being done", Status: "in_progress", Assignee: "bob"}, {ID: "bad id", Title: "x", Status: "open"},
		}}})
		w.writePlan(localPlan)
		tr := w.tracker(w.options("beads", "local"))
		brief, news := tr.Next(context.Background())
		want := localPlan + "## Tasks from beads\n- [ ] [bd-b2] Urgent\n- [ ] [bd-a1] Fix the login redirect\n"
		if got := w.plan(); got != want {
			t.Fatalf("envelope %v: plan\n%q\nwant\n%q", envelope, got, want)
		}
		if diff := cmp.Diff([][]string{{"bd", "ready", "--json", "--limit=0"}}, w.calls()); diff != "" {
			t.Errorf("commands (-want +got):\n%s", diff)
		}
		if len(news) != 1 || news[0].Kind != events.TaskImported || strings.Join(news[0].Keys, ",") != "bd-b2,bd-a1" {
			t.Errorf("news %+v", news)
		}
		if brief != "" {
			t.Errorf("the next task is a local one, yet the context got %q", brief)
		}
		// Nothing changed in beads: the next sync writes nothing.
		if _, news := tr.Next(context.Background()); len(news) != 0 || w.plan() != want {
			t.Errorf("second sync: %+v\n%s", news, w.plan())
		}
	}
}

// BEADS_FILTER becomes bd ready's flags, one --flag=value argument each.
func TestBeadsFilter(t *testing.T) {
	t.Parallel()
	w := newWorld(t, faketracker.State{})
	o := w.options("beads")
	o.Filter = "status:open, label:backend priority:P1 type:bug unassigned label-any:a exclude-label:wip parent:bd-x assignee:me"
	w.tracker(o).Next(context.Background())
	want := [][]string{{"bd", "ready", "--json", "--limit=0", "--label=backend", "--priority=1", "--type=bug", "--unassigned",
		"--label-any=a", "--exclude-label=wip", "--parent=bd-x", "--assignee=me"}}
	if diff := cmp.Diff(want, w.calls()); diff != "" {
		t.Errorf("commands (-want +got):\n%s", diff)
	}
	for _, bad := range []string{"status:closed", "colour:red", "label:", "label:--exec=x y", "priority:7", "label:a;b"} {
		if _, err := parseBeadsFilter(bad); err == nil {
			t.Errorf("BEADS_FILTER=%q accepted", bad)
		}
	}
	o.Filter = "colour:red"
	if tr, warns := New(o); tr != nil || len(warns) != 1 || !strings.Contains(warns[0], "nothing is imported from beads") {
		t.Errorf("a bad filter: %v %q", tr, warns)
	}
}

// Items closed in beads behind the loop's back are ticked; items someone
// else took, or that left the ready list, leave the plan; the state of
// both is asked with one bd show.
func TestBeadsBehindTheLoopsBack(t *testing.T) {
	t.Parallel()
	w := newWorld(t, faketracker.State{Beads: faketracker.Beads{Issues: []faketracker.Bead{
		bead("bd-1", "One"), bead("bd-2", "Two"), bead("bd-3", "Three"), bead("bd-4", "Four"),
	}}})
	w.writePlan(localPlan)
	tr := w.tracker(w.options("beads"))
	tr.Next(context.Background())
	w.calls()
	w.change(func(s *faketracker.State) {
		s.Beads.Issues[1].Status = "closed"
		s.Beads.Issues[2].Status, s.Beads.Issues[2].Assignee = "in_progress", "bob"
		s.Beads.Issues = s.Beads.Issues[:3] // bd-4 deleted
	})
	_, news := tr.Next(context.Background())
	want := localPlan + "## Tasks from beads\n- [ ] [bd-1] One\n- [x] [bd-2] Two\n"
	if got := w.plan(); got != want {
		t.Fatalf("plan\n%s\nwant\n%s", got, want)
	}
	wantCalls := [][]string{{"bd", "ready", "--json", "--limit=0"}, {"bd", "show", "bd-2", "bd-3", "bd-4", "--json"}}
	if diff := cmp.Diff(wantCalls, w.calls()); diff != "" {
		t.Errorf("commands (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]events.Type{events.TaskClosed}, kinds(news)); diff != "" || news[0].Note != "was closed in beads" {
		t.Errorf("news %+v", news)
	}
}

// A tracker that hangs is stopped at TASK_TIMEOUT: one tracker_error, the
// plan untouched, the same error not said again at the next sync.
func TestBeadsHangs(t *testing.T) {
	t.Parallel()
	w := newWorld(t, faketracker.State{Beads: faketracker.Beads{Hang: true}})
	w.writePlan(localPlan)
	o := w.options("beads")
	o.Timeout = 300 * time.Millisecond
	tr := w.tracker(o)
	start := time.Now()
	_, news := tr.Next(context.Background())
	if len(news) != 1 || news[0].Kind != events.TrackerError || !strings.Contains(news[0].Err, "'bd ready --json' gave no answer within 300ms (TASK_TIMEOUT) and was stopped") {
		t.Fatalf("news %+v", news)
	}
	if time.Since(start) > 10*time.Second {
		t.Errorf("the sync took %s", time.Since(start))
	}
	if w.plan() != localPlan {
		t.Errorf("plan changed: %s", w.plan())
	}
	if _, news := tr.Next(context.Background()); len(news) != 0 {
		t.Errorf("the same error said again: %+v", news)
	}
}

// A missing bd is one line saying what to do.
func TestBeadsNotInstalled(t *testing.T) {
	w := newWorld(t, faketracker.State{})
	o := w.options("beads")
	o.Run = nil // supervise.Run itself, with this process's PATH: no bd there
	o.Env = append(o.Env, "PATH=/nonexistent")
	t.Setenv("PATH", "/nonexistent")
	_, news := w.tracker(o).Next(context.Background())
	if len(news) != 1 || news[0].Err != "bd is not installed (not found on PATH); install it, or take it out of TASK_SOURCES" {
		t.Errorf("news %+v", news)
	}
}

// With TASK_WRITEBACK the next task's item is claimed before the call,
// closed once its line is ticked and the gates pass (not before), and a
// claim the run ends with is given back.
func TestBeadsWriteback(t *testing.T) {
	t.Parallel()
	w := newWorld(t, faketracker.State{Beads: faketracker.Beads{Issues: []faketracker.Bead{bead("bd-1", "One"), bead("bd-2", "Two")}}})
	w.writePlan("# Plan\n")
	o := w.options("beads")
	o.Writeback, o.Gates = true, true
	o.Env = append(o.Env, "USER=ann")
	actor := "--actor=" + o.actor()
	if !strings.HasPrefix(actor, "--actor=ann/ralph-") || len(actor) != len("--actor=ann/ralph-123456") {
		t.Errorf("actor %s", actor)
	}
	tr := w.tracker(o)
	ctx := context.Background()
	brief, news := tr.Next(ctx)
	if diff := cmp.Diff([]events.Type{events.TaskImported, events.TaskClaimed}, kinds(news)); diff != "" {
		t.Errorf("news (-want +got):\n%s", diff)
	}
	if !strings.Contains(brief, "[bd-1]") {
		t.Errorf("brief: %s", brief)
	}
	wantCalls := [][]string{{"bd", "ready", "--json", "--limit=0"}, {"bd", "update", "bd-1", "--claim", "--json", actor}}
	if diff := cmp.Diff(wantCalls, w.calls()); diff != "" {
		t.Errorf("commands (-want +got):\n%s", diff)
	}
	if st := w.getState(); st.Beads.Issues[0].Status != "in_progress" || "--actor="+st.Beads.Issues[0].Assignee != actor {
		t.Errorf("bd-1 after the claim: %+v", st.Beads.Issues[0])
	}

	// The call ticks bd-1; the gates fail: nothing is written back yet.
	w.tick("bd-1")
	if news := tr.Done(ctx, 1, []string{"[bd-1] One"}, false, "abc1234"); len(news) != 0 || len(w.calls()) != 0 {
		t.Errorf("written back with failing gates: %+v", news)
	}
	// The next sync keeps the claimed item (bd show says it is ours) and
	// claims bd-2 for the next call.
	if _, news := tr.Next(ctx); strings.Join(news[0].Keys, "") != "bd-2" || news[0].Kind != events.TaskClaimed {
		t.Errorf("news %+v", news)
	}
	w.calls()
	// The next call's gates pass: bd-1 is closed.
	news = tr.Done(ctx, 2, nil, true, "def5678")
	if len(news) != 1 || news[0].Kind != events.TaskClosed || news[0].Note != "closed in beads" {
		t.Errorf("news %+v", news)
	}
	wantCalls = [][]string{{"bd", "close", "bd-1", "--reason=Done by ralph_loop in loop 2, commit def5678. The quality gates passed.", "--json", actor}}
	if diff := cmp.Diff(wantCalls, w.calls()); diff != "" {
		t.Errorf("commands (-want +got):\n%s", diff)
	}
	// The run ends: bd-2's claim is given back.
	news = tr.End(context.Background(), 2, false, "")
	if diff := cmp.Diff([]events.Type{events.TaskReleased}, kinds(news)); diff != "" {
		t.Errorf("news (-want +got):\n%s", diff)
	}
	wantCalls = [][]string{{"bd", "update", "bd-2", "--status=open", "--assignee=", "--json", actor}}
	if diff := cmp.Diff(wantCalls, w.calls()); diff != "" {
		t.Errorf("commands (-want +got):\n%s", diff)
	}
	st := w.getState()
	if st.Beads.Issues[0].Status != "closed" || st.Beads.Issues[1].Status != "open" || st.Beads.Issues[1].Assignee != "" {
		t.Errorf("beads at the end: %+v", st.Beads.Issues)
	}
}

// Without TASK_WRITEBACK nothing is claimed, closed or released: the
// trackers see reads only.
func TestBeadsReadOnly(t *testing.T) {
	t.Parallel()
	w := newWorld(t, faketracker.State{Beads: faketracker.Beads{Issues: []faketracker.Bead{bead("bd-1", "One")}}})
	w.writePlan("# Plan\n")
	tr := w.tracker(w.options("beads"))
	ctx := context.Background()
	tr.Next(ctx)
	w.tick("bd-1")
	tr.Done(ctx, 1, []string{"[bd-1] One"}, true, "abc")
	tr.Next(ctx)
	tr.End(context.Background(), 1, true, "abc")
	for _, c := range w.calls() {
		if c[1] != "ready" && c[1] != "show" {
			t.Errorf("a read-only import ran %q", c)
		}
	}
	if st := w.getState(); st.Beads.Issues[0].Status != "open" {
		t.Errorf("bd-1 changed: %+v", st.Beads.Issues[0])
	}
	if !strings.Contains(w.plan(), "- [x] [bd-1] One") {
		t.Errorf("the tick was lost:\n%s", w.plan())
	}
}

// Two workers of a swarm claim the one item at the same moment (the fake
// holds both at a barrier): bd's claim is atomic between their actors, so
// exactly one gets it; the other drops its line and works on nothing of it.
func TestBeadsClaimRace(t *testing.T) {
	t.Parallel()
	w1 := newWorld(t, faketracker.State{Beads: faketracker.Beads{Barrier: 2, Issues: []faketracker.Bead{bead("bd-1", "The one")}}})
	w2 := w1.another()
	var briefs [2]string
	var news [2][]events.Task
	var wg sync.WaitGroup
	for i, w := range []*world{w1, w2} {
		w.writePlan("# Plan\n")
		o := w.options("beads")
		o.Writeback, o.Worker = true, []string{"worker-1", "worker-2"}[i]
		o.Env = append(o.Env, "USER=ann")
		tr := w.tracker(o)
		wg.Go(func() { briefs[i], news[i] = tr.Next(context.Background()) })
	}
	wg.Wait()
	claimed, taken := 0, 0
	for i := range news {
		for _, n := range news[i] {
			switch n.Kind {
			case events.TaskClaimed:
				claimed++
				if !strings.Contains(briefs[i], "[bd-1]") {
					t.Errorf("the winner's brief: %q", briefs[i])
				}
			case events.TaskTaken:
				taken++
				if briefs[i] != "" || strings.Contains([]*world{w1, w2}[i].plan(), "bd-1") {
					t.Errorf("the loser still has bd-1: brief %q", briefs[i])
				}
				if !strings.Contains(n.Note, "already claimed by ann/worker-") {
					t.Errorf("taken: %q", n.Note)
				}
			}
		}
	}
	if claimed != 1 || taken != 1 {
		t.Fatalf("claimed %d, taken %d: %+v", claimed, taken, news)
	}
	if st := w1.getState(); !strings.HasPrefix(st.Beads.Issues[0].Assignee, "ann/worker-") {
		t.Errorf("bd-1: %+v", st.Beads.Issues[0])
	}
}

// A swarm worker's loop killed before its end gave nothing back: the
// swarm gives back what the worker's map still holds, as that worker's
// actor, and says so.
func TestReleaseClaims(t *testing.T) {
	t.Parallel()
	w := newWorld(t, faketracker.State{Beads: faketracker.Beads{Issues: []faketracker.Bead{bead("bd-1", "One")}}})
	w.writePlan("# Plan\n")
	o := w.options("beads")
	o.Writeback, o.Worker = true, "worker-2"
	o.Env = append(o.Env, "USER=ann")
	w.tracker(o).Next(context.Background()) // claims bd-1, and the loop is killed here
	w.calls()
	o.Writeback = false // the swarm's own settings may not say
	lines := ReleaseClaims(context.Background(), o)
	if len(lines) != 1 || lines[0] != "gave back its claim on bd-1 (beads)" {
		t.Errorf("lines %q", lines)
	}
	want := [][]string{{"bd", "update", "bd-1", "--status=open", "--assignee=", "--json", "--actor=ann/worker-2"}}
	if diff := cmp.Diff(want, w.calls()); diff != "" {
		t.Errorf("commands (-want +got):\n%s", diff)
	}
	if lines := ReleaseClaims(context.Background(), o); len(lines) != 0 || len(w.calls()) != 0 {
		t.Errorf("released twice: %q", lines)
	}
}

// Each loop claims as a name of its own: the same for every run in one
// project (its claims are its own again), another in another project or
// swarm worker, the person's BEADS_ACTOR first.
func TestBeadsActor(t *testing.T) {
	o := Options{Project: "/home/ann/p1", Env: []string{"USER=ann"}}
	a1 := o.actor()
	if a1 != o.actor() || !strings.HasPrefix(a1, "ann/ralph-") {
		t.Errorf("actor %q", a1)
	}
	o2 := o
	o2.Project = "/home/ann/p2"
	o3 := o
	o3.Worker = "worker-2"
	o4 := o
	o4.Env = append(o4.Env, "BEADS_ACTOR=annie")
	if a2, a3, a4 := o2.actor(), o3.actor(), o4.actor(); a2 == a1 || a3 != "ann/worker-2" || !strings.HasPrefix(a4, "annie/ralph-") {
		t.Errorf("actors %q %q %q", a2, a3, a4)
	}
}

// An older bd (before 0.42) lists items in progress as ready, fails a
// whole bd show when one of its items is gone, and has no --claim: the
// import leaves out someone else's item, the items still there are asked
// of one by one, and the failed claim is one line that says what to do,
// not the last line of bd's usage.
func TestBeadsOlderBd(t *testing.T) {
	t.Parallel()
	w := newWorld(t, faketracker.State{Beads: faketracker.Beads{Old: true, Issues: []faketracker.Bead{
		bead("bd-1", "One"), bead("bd-2", "Two"), bead("bd-3", "Three"), {ID: "bd-4", Title: "Bob's", Status: "in_progress", Assignee: "bob"},
	}}})
	w.writePlan("# Plan\n")
	o := w.options("beads")
	tr := w.tracker(o)
	tr.Next(context.Background())
	w.calls()
	w.change(func(s *faketracker.State) {
		s.Beads.Issues[1].Status = "closed"
		s.Beads.Issues = slices.Delete(s.Beads.Issues, 2, 3) // bd-3 deleted
	})
	_, news := tr.Next(context.Background())
	if want := "# Plan\n\n## Tasks from beads\n- [ ] [bd-1] One\n- [x] [bd-2] Two\n"; w.plan() != want {
		t.Fatalf("plan\n%s\nwant\n%s", w.plan(), want)
	}
	wantCalls := [][]string{
		{"bd", "ready", "--json", "--limit=0"}, {"bd", "show", "bd-2", "bd-3", "--json"},
		{"bd", "show", "bd-2", "--json"}, {"bd", "show", "bd-3", "--json"},
	}
	if diff := cmp.Diff(wantCalls, w.calls()); diff != "" {
		t.Errorf("commands (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]events.Type{events.TaskClosed}, kinds(news)); diff != "" {
		t.Errorf("news %+v", news)
	}

	o.Writeback = true
	_, news = w.tracker(o).Next(context.Background())
	if len(news) != 1 || news[0].Kind != events.TrackerError || news[0].Op != "claim" ||
		!strings.Contains(news[0].Err, "this bd has no --claim") || strings.Contains(news[0].Err, "sandbox") {
		t.Errorf("news %+v", news)
	}
}

// When none of the items asked of is there any more, bd 1.x prints its
// error as JSON on stdout and fails: their lines leave the plan (a ticked
// one stays), with no tracker_error.
func TestBeadsAllGone(t *testing.T) {
	t.Parallel()
	w := newWorld(t, faketracker.State{Beads: faketracker.Beads{Issues: []faketracker.Bead{bead("bd-1", "One"), bead("bd-2", "Two"), bead("bd-3", "Three")}}})
	w.writePlan("# Plan\n")
	tr := w.tracker(w.options("beads"))
	tr.Next(context.Background())
	w.tick("bd-3")
	w.calls()
	w.change(func(s *faketracker.State) { s.Beads.Issues = s.Beads.Issues[:1] })
	_, news := tr.Next(context.Background())
	if want := "# Plan\n\n## Tasks from beads\n- [ ] [bd-1] One\n- [x] [bd-3] Three\n"; w.plan() != want {
		t.Fatalf("plan\n%s\nwant\n%s", w.plan(), want)
	}
	if len(news) != 0 {
		t.Errorf("news %+v", news)
	}
}

// A failed command's one line is its error, wherever the CLI put it.
func TestFailLine(t *testing.T) {
	for _, tc := range []struct{ stdout, stderr, want string }{
		{"", "Error: unknown flag: --claim\nUsage:\n  bd update [id...]\n\nFlags:\n  --sandbox  Sandbox mode\n", "Error: unknown flag: --claim"},
		{"{\n  \"error\": \"no issues found matching the provided IDs\",\n  \"schema_version\": 1\n}\n", "", "no issues found matching the provided IDs"},
		{`{"schema_version":1,"data":{"error":"database locked"}}`, "", "database locked"},
		{"", "GraphQL: Could not resolve to an issue with the number of 9. (repository.issue)\n", "GraphQL: Could not resolve to an issue with the number of 9. (repository.issue)"},
		{"", "warning: x\nerror: \x1b[31mred\n", `error: \x1b[31mred`},
		{"", "", ""},
	} {
		if got := failLine([]byte(tc.stdout), []byte(tc.stderr)); got != tc.want {
			t.Errorf("failLine(%q, %q) = %q, want %q", tc.stdout, tc.stderr, got, tc.want)
		}
	}
}

// The trackers' CLIs start no daemon that would outlive their command,
// whatever the person's environment says.
func TestRunnerEnvironment(t *testing.T) {
	r := newRunner(Options{Env: []string{"BEADS_NO_DAEMON=0", "HOME=/h", "CLAUDECODE=1", "NO_COLOR="}})
	for _, want := range []string{"BEADS_NO_DAEMON=1", "BEADS_DOLT_AUTO_START=0", "HOME=/h", "NO_COLOR=1", "GH_PROMPT_DISABLED=1"} {
		if !slices.Contains(r.env, want) {
			t.Errorf("env %q lacks %s", r.env, want)
		}
	}
	for _, kv := range r.env {
		if kv == "BEADS_NO_DAEMON=0" || kv == "NO_COLOR=" || strings.HasPrefix(kv, "CLAUDECODE=") {
			t.Errorf("env %q keeps %s", r.env, kv)
		}
	}
}

// A tracker that lists thousands of items brings itemsMax of them into
// the plan, those already there first, and says how many were left out.
func TestItemsCapped(t *testing.T) {
	t.Parallel()
	var issues []faketracker.Bead
	for i := range itemsMax + 40 {
		issues = append(issues, bead(fmt.Sprintf("bd-%d", i), "Item"))
	}
	w := newWorld(t, faketracker.State{Beads: faketracker.Beads{Issues: issues}})
	w.writePlan("# Plan\n\n## Tasks from beads\n- [ ] [bd-" + fmt.Sprint(itemsMax+30) + "] Item\n")
	_, news := w.tracker(w.options("beads")).Next(context.Background())
	lines, _ := fixplan.Section([]byte(w.plan()), beadsHeading)
	if len(lines) != itemsMax || lines[0].Key != fmt.Sprintf("bd-%d", itemsMax+30) || lines[itemsMax-1].Key != fmt.Sprintf("bd-%d", itemsMax-2) {
		t.Errorf("%d lines: first %v, last %v", len(lines), lines[0], lines[len(lines)-1])
	}
	if len(news) != 1 || news[0].Note != "40 more items are left out: the plan takes 300 of a tracker's" {
		t.Errorf("news %+v", news)
	}
}

// A tracker that prints more than the bound is stopped: one line, the
// plan untouched.
func TestBeadsTooMuchOutput(t *testing.T) {
	t.Parallel()
	var issues []faketracker.Bead
	for i := range 100 {
		issues = append(issues, bead(fmt.Sprintf("bd-%d", i), strings.Repeat("x", 100)))
	}
	w := newWorld(t, faketracker.State{Beads: faketracker.Beads{Issues: issues}})
	w.writePlan(localPlan)
	tr := w.tracker(w.options("beads"))
	tr.r.maxOutput = 4096
	_, news := tr.Next(context.Background())
	if len(news) != 1 || news[0].Err != "'bd ready --json' printed more than 4096 bytes and was stopped; import fewer items (BEADS_FILTER, GITHUB_TASK_LABEL)" {
		t.Errorf("news %+v", news)
	}
	if w.plan() != localPlan {
		t.Errorf("plan changed: %s", w.plan())
	}
}

// A release that a stop cuts short is said, with the item that stays
// claimed, and the map keeps the claim for the next run to give back.
func TestReleaseCutShort(t *testing.T) {
	t.Parallel()
	w := newWorld(t, faketracker.State{Beads: faketracker.Beads{Issues: []faketracker.Bead{bead("bd-1", "One")}}})
	w.writePlan("# Plan\n")
	o := w.options("beads")
	o.Writeback = true
	tr := w.tracker(o)
	tr.Next(context.Background())
	w.change(func(s *faketracker.State) { s.Beads.Hang = true })
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	news := tr.End(ctx, 1, false, "")
	if len(news) != 1 || news[0].Kind != events.TrackerError || news[0].Op != "release" ||
		news[0].Err != "bd-1 stays claimed (the next run here gives it back): the stop cut it short" {
		t.Errorf("news %+v", news)
	}
	w.change(func(s *faketracker.State) { s.Beads.Hang = false })
	if lines := ReleaseClaims(context.Background(), o); len(lines) != 1 || lines[0] != "gave back its claim on bd-1 (beads)" {
		t.Errorf("the next run: %q", lines)
	}
}

// bd in server mode, its dolt server not running, may not start one: the
// line says to start it.
func TestBeadsServerNotRunning(t *testing.T) {
	t.Parallel()
	w := newWorld(t, faketracker.State{Beads: faketracker.Beads{Fail: "Error: failed to open database: Dolt server unreachable (port 3307) and auto-start is disabled (dolt.auto-start: false in config.yaml or BEADS_DOLT_AUTO_START=0).\n\nStart the server manually or enable auto-start.\n  To start manually: bd dolt start"}})
	w.writePlan(localPlan)
	_, news := w.tracker(w.options("beads")).Next(context.Background())
	want := "'bd ready --json' failed (exit 1): Error: failed to open database: Dolt server unreachable (port 3307) and auto-start is disabled (dolt.auto-start: false in config.yaml or BEADS_DOLT_AUTO_START=0).; the loop lets bd start no dolt server: start it yourself ('bd dolt start')"
	if len(news) != 1 || news[0].Err != want {
		t.Errorf("news %+v", news)
	}
}
