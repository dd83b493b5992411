//go:build unix

package swarm

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ralphloop/ralph_loop/internal/gates"
)

func gatesConfig() gates.Config {
	return gates.Config{TestCommand: "test ! -e bad.txt", Timeout: 20 * time.Second}
}

// clean fails unless the main worktree has no change, no merge under way
// and no conflict marker.
func clean(t *testing.T, root string) {
	t.Helper()
	if s := run(t, root, "git", "status", "--porcelain"); s != "" {
		t.Errorf("main worktree not clean:\n%s", s)
	}
	if _, err := os.Stat(filepath.Join(root, ".git", "MERGE_HEAD")); err == nil {
		t.Error("a merge is under way in the main worktree")
	}
	if b, _ := os.ReadFile(filepath.Join(root, "same.txt")); strings.Contains(string(b), "<<<<<<<") {
		t.Errorf("conflict markers on main:\n%s", b)
	}
}

func states(r Report) string {
	var s []string
	for _, w := range r.Workers {
		s = append(s, w.State)
	}
	return strings.Join(s, ",")
}

func TestTwoEpicsFinishAndBothMerge(t *testing.T) {
	root := project(t, "# Plan\n\n## Epic A\n- [ ] a1\n- [ ] a2\n\n## Epic B\n- [ ] b1\n\n## Completed\n- [x] old\n")
	r := runSwarm(t, swarmOpts(t, root))
	if r.Status != "merged" || states(r) != "merged,merged" {
		t.Fatalf("status %s, states %s", r.Status, states(r))
	}
	clean(t, root)
	if got := run(t, root, "cat", "epic-a.txt", "epic-b.txt"); got != "a1\na2\nb1" {
		t.Errorf("main has %q", got)
	}
	plan, _ := os.ReadFile(filepath.Join(root, ".ralph", "@fix_plan.md"))
	if strings.Contains(string(plan), "- [ ]") || !strings.Contains(string(plan), "## Epic A") {
		t.Errorf("main's plan after the merges:\n%s", plan)
	}
	if br := run(t, root, "git", "branch", "--list", "swarm/*"); br != "" {
		t.Errorf("merged branches left: %s", br)
	}
	if merges := run(t, root, "git", "log", "--merges", "--format=%s"); strings.Count(merges, "swarm: merge worker ") != 2 {
		t.Errorf("merge commits: %s", merges)
	}
	st, found, err := load(root)
	if err != nil || !found || st.Status != "merged" {
		t.Errorf("state %+v %v %v", st, found, err)
	}
}

func TestRedMergeIsHeldBackAndMainStaysGreen(t *testing.T) {
	root := project(t, "# Plan\n\n## Epic A\n- [ ] a1\n\n## Epic bad\n- [ ] b1\n")
	r := runSwarm(t, swarmOpts(t, root))
	if r.Status != "held" {
		t.Fatalf("status %s, states %s", r.Status, states(r))
	}
	var bad Worker
	for _, w := range r.Workers {
		if w.Epics[0] == "Epic bad" {
			bad = w
		} else if w.State != mergedState {
			t.Errorf("worker %d: %s", w.ID, w.State)
		}
	}
	if bad.State != held || bad.Attempts != 1 || !strings.Contains(bad.Note, "quality gates") {
		t.Errorf("the bad worker: %+v", bad)
	}
	clean(t, root)
	if _, err := os.Stat(filepath.Join(root, "bad.txt")); err == nil {
		t.Error("bad.txt reached main")
	}
	if br := run(t, root, "git", "branch", "--list", bad.Branch); br == "" {
		t.Errorf("branch %s not kept", bad.Branch)
	}
	// The loop was handed the failing output.
	plan, _ := os.ReadFile(filepath.Join(root, bad.Worktree, ".ralph", "@fix_plan.md"))
	if !strings.Contains(string(plan), "Make the quality gates pass") || !strings.Contains(string(plan), "`test ! -e bad.txt` exited 1") {
		t.Errorf("the hand-back task:\n%s", plan)
	}
}

func TestRedMergeFixedByItsLoopGoesIn(t *testing.T) {
	root := project(t, "# Plan\n\n## Epic A\n- [ ] a1\n\n## Epic bad\n- [ ] b1\n")
	r := runSwarm(t, swarmOpts(t, root, "FAKE_FIX=1"))
	if r.Status != "merged" {
		t.Fatalf("status %s, states %s", r.Status, states(r))
	}
	clean(t, root)
	if _, err := os.Stat(filepath.Join(root, "bad.txt")); err == nil {
		t.Error("bad.txt reached main")
	}
}

func TestSameLineConflictResolvedByTheLoop(t *testing.T) {
	root := project(t, "# Plan\n\n## Epic same 1\n- [ ] one\n\n## Epic same 2\n- [ ] two\n")
	r := runSwarm(t, swarmOpts(t, root, "FAKE_RESOLVE=1"))
	if r.Status != "merged" {
		t.Fatalf("status %s, states %s", r.Status, states(r))
	}
	clean(t, root)
	if got := run(t, root, "cat", "same.txt"); got != "resolved" {
		t.Errorf("same.txt on main: %q", got)
	}
}

func TestSameLineConflictUnresolvedNamesTheBranch(t *testing.T) {
	root := project(t, "# Plan\n\n## Epic same 1\n- [ ] one\n\n## Epic same 2\n- [ ] two\n")
	r := runSwarm(t, swarmOpts(t, root))
	if r.Status != "held" || states(r) != "merged,conflict" && states(r) != "conflict,merged" {
		t.Fatalf("status %s, states %s", r.Status, states(r))
	}
	clean(t, root)
	for _, w := range r.Workers {
		if w.State != conflict {
			continue
		}
		if !strings.Contains(w.Note, "same.txt") {
			t.Errorf("note %q", w.Note)
		}
		if br := run(t, root, "git", "branch", "--list", w.Branch); br == "" {
			t.Errorf("branch %s not kept", w.Branch)
		}
		if _, err := os.Stat(filepath.Join(root, w.Worktree, ".git")); err != nil {
			t.Errorf("worktree %s gone", w.Worktree)
		}
	}
}

func TestStopLeavesNoProcessAndResumes(t *testing.T) {
	root := project(t, "# Plan\n\n## Epic hang 1\n- [ ] one\n\n## Epic hang 2\n- [ ] two\n")
	pids := t.TempDir()
	o := swarmOpts(t, root, "FAKE_PIDS="+pids)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan Report)
	go func() {
		r, err := Run(ctx, o)
		must(t, err)
		done <- r
	}()
	var found []int
	deadline := time.Now().Add(30 * time.Second)
	for len(found) < 2 && time.Now().Before(deadline) {
		found = found[:0]
		for _, n := range []string{"worker-1", "worker-2"} {
			if b, err := os.ReadFile(filepath.Join(pids, n+".pid")); err == nil {
				if p, _ := strconv.Atoi(string(b)); p > 0 {
					found = append(found, p)
				}
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	if len(found) < 2 {
		t.Fatal("the workers never started")
	}
	cancel()
	r := <-done
	if r.Status != "stopped" || states(r) != "stopped,stopped" {
		t.Fatalf("status %s, states %s", r.Status, states(r))
	}
	for _, p := range found {
		if err := syscall.Kill(p, 0); err == nil {
			t.Errorf("worker loop %d still runs", p)
		}
	}
	// Run again: the same workers go on from where they were. Their plan
	// now says to write files instead of hanging.
	for _, n := range []string{"worker-1", "worker-2"} {
		p := filepath.Join(root, dir, n, ".ralph", "@fix_plan.md")
		b, _ := os.ReadFile(p)
		must(t, os.WriteFile(p, []byte(strings.ReplaceAll(string(b), "hang", "done")), 0o644))
	}
	r = runSwarm(t, o)
	if r.Status != "merged" {
		t.Fatalf("resumed: status %s, states %s", r.Status, states(r))
	}
	clean(t, root)
	if got := run(t, root, "cat", "epic-done-1.txt", "epic-done-2.txt"); got != "one\ntwo" {
		t.Errorf("main has %q", got)
	}
}

// A worker whose loop stopped short (exit 4, --max-loops) is held back;
// running the swarm again runs its loop again, and it merges.
func TestStoppedShortIsHeldThenResumed(t *testing.T) {
	root := project(t, "# Plan\n\n## Epic A\n- [ ] a1\n\n## Epic stop\n- [ ] s1\n")
	o := swarmOpts(t, root, "FAKE_PIDS="+t.TempDir())
	r := runSwarm(t, o)
	if r.Status != "held" {
		t.Fatalf("status %s, states %s", r.Status, states(r))
	}
	for _, w := range r.Workers {
		if w.Epics[0] == "Epic stop" && (w.State != held || w.ExitCode == nil || *w.ExitCode != 4 || !strings.Contains(w.Note, "exit code 4")) {
			t.Errorf("the stopped worker: %+v", w)
		}
	}
	clean(t, root)
	r = runSwarm(t, o)
	if r.Status != "merged" {
		t.Fatalf("again: status %s, states %s", r.Status, states(r))
	}
	if got := run(t, root, "cat", "stop.txt"); got != "s1" {
		t.Errorf("stop.txt %q", got)
	}
}

func TestSplit(t *testing.T) {
	plan := "# Ralph Fix Plan\n\n## Stories to Implement\n\n### Epic 1: A\n> Goal: a\n- [ ] Story 1.1: x\n- [ ] Story 1.2: y\n- [ ] Story 1.3: z\n\n### Epic 2: B\n- [ ] Story 2.1: x\n\n### Epic 3: C\n- [ ] Story 3.1: x\n- [ ] Story 3.2: y\n\n### Epic 4: done\n- [x] Story 4.1: x\n\n## Completed\n\n## Notes\n- keep it small\n"
	pre, parts, err := split(plan, 3)
	must(t, err)
	got := [][]string{}
	for _, p := range parts {
		got = append(got, headings(p))
	}
	want := "[[Epic 1: A] [Epic 3: C] [Epic 2: B]]"
	if s := strings.Join(strings.Fields(strings.Trim(strings.ReplaceAll(fmtSlices(got), "\n", " "), " ")), " "); s != want {
		t.Errorf("split %s, want %s", s, want)
	}
	wp := workerPlan(pre, parts[0])
	if !strings.HasPrefix(wp, "# Ralph Fix Plan\n") || !strings.Contains(wp, "> Goal: a\n- [ ] Story 1.1: x") || strings.Contains(wp, "Epic 2") {
		t.Errorf("worker plan:\n%s", wp)
	}
	_, parts, err = split(plan, 6)
	if err != nil || len(parts) != 3 {
		t.Errorf("6 workers for 3 epics: %d, %v", len(parts), err)
	}
	if _, _, err := split("# P\n## A\n- [ ] a\n## B\n- [x] b\n", 2); err == nil {
		t.Error("one open epic split")
	}
	if got, n := completions("## A\n- [ ] a\n- [ ] b\n", "## A\n- [x] b\n"); n != 1 || got != "## A\n- [ ] a\n- [x] b\n" {
		t.Errorf("completions %q %d", got, n)
	}
}

func fmtSlices(s [][]string) string {
	var b strings.Builder
	b.WriteString("[")
	for i, p := range s {
		if i > 0 {
			b.WriteString(" ")
		}
		b.WriteString("[" + strings.Join(p, " ") + "]")
	}
	b.WriteString("]")
	return b.String()
}

// A .swarm the repository brings as a link is refused: nothing is written
// where it points.
func TestSwarmFolderLinkRefused(t *testing.T) {
	root := project(t, "# Plan\n\n## Epic A\n- [ ] a1\n\n## Epic B\n- [ ] b1\n")
	outside := t.TempDir()
	must(t, os.Symlink(outside, filepath.Join(root, dir)))
	if _, err := Run(context.Background(), swarmOpts(t, root)); err == nil || !strings.Contains(err.Error(), "not a folder") {
		t.Fatalf("Run with .swarm a link: %v, want it refused", err)
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("written through the link: %v", entries)
	}
}
