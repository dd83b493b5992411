//go:build unix

package swarm

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// handBackSwarm is checkedSwarm with worker 1 in its state, its branch a
// commit ahead of main with same.txt as worker, and main a commit ahead
// with same.txt as onMain.
func handBackSwarm(t *testing.T, worker, onMain string) (*swarm, string) {
	t.Helper()
	root := projectIn(t, t.TempDir(), "# Plan\n\n## Epic A\n- [ ] a1\n")
	s := checkedSwarm(t, root, false)
	s.o.Retries = 2
	wt := filepath.Join(s.dir, workerName(1))
	s.st = state{Base: "main", Status: "running", Workers: []Worker{{ID: 1, Worktree: filepath.ToSlash(filepath.Join(dir, workerName(1))),
		Branch: branch(1), Epics: []string{"Epic A"}, State: running}}}
	must(t, os.WriteFile(filepath.Join(wt, "same.txt"), []byte(worker), 0o644))
	run(t, wt, "git", "commit", "-q", "-am", "worker")
	must(t, os.WriteFile(filepath.Join(root, "same.txt"), []byte(onMain), 0o644))
	run(t, root, "git", "commit", "-q", "-am", "main")
	return s, wt
}

// TestHandBackMergesTheBase: a red merge handed back merges the main
// branch into the worker's branch with one `git merge`, lists the
// conflicts once and asks whether a merge is under way once, after it
// (to conclude it).
func TestHandBackMergesTheBase(t *testing.T) {
	s, wt := handBackSwarm(t, "base\nworker\n", "main\nbase\n")
	noted := countingGit(t)
	if done := s.handBack(context.Background(), 1, red, nil, "`test` exited 1\n"); done {
		t.Fatalf("handed back: done, want its loop to run again; %+v", s.worker(1))
	}
	if w := s.worker(1); w.State != fixing || w.Attempts != 1 {
		t.Errorf("worker after the hand-back: %+v", w)
	}
	if got := run(t, wt, "cat", "same.txt"); got != "main\nbase\nworker" {
		t.Errorf("same.txt in the worker after main merged in: %q", got)
	}
	if parents := run(t, wt, "git", "log", "-1", "--format=%P"); len(strings.Fields(parents)) != 2 {
		t.Errorf("the worker's HEAD has parents %q, want the merge of main concluded", parents)
	}
	n := noted()
	if m, q := asked(n, "merge --no-edit"), asked(n, "rev-parse --verify MERGE_HEAD"); m != 1 || q != 1 {
		t.Errorf("git merge %d times, MERGE_HEAD asked %d times; want 1 and 1", m, q)
	}
	if u := asked(n, "diff --diff-filter=U"); u != 1 {
		t.Errorf("the conflicts listed %d times, want once", u)
	}
}

// TestHandBackTakesUpAMergeUnderWay: a worker whose loop left the merge
// of main in conflict is handed the conflict again, and that merge is
// taken up as it is, not started anew.
func TestHandBackTakesUpAMergeUnderWay(t *testing.T) {
	s, wt := handBackSwarm(t, "worker\n", "main\n")
	if out, err := git(context.Background(), wt, "merge", "-q", "refs/heads/main"); err == nil {
		t.Fatalf("the merge of main did not conflict: %s", out)
	}
	mergeHead := run(t, wt, "git", "rev-parse", "MERGE_HEAD")
	must(t, os.WriteFile(filepath.Join(wt, "other.txt"), []byte("the loop's work\n"), 0o644))
	run(t, wt, "git", "add", "other.txt")
	if done := s.handBack(context.Background(), 1, conflicted, []string{"same.txt"}, ""); done {
		t.Fatalf("handed back: done, want its loop to run again; %+v", s.worker(1))
	}
	if w := s.worker(1); w.State != resolving || !strings.Contains(w.Note, "same.txt") {
		t.Errorf("worker after the hand-back: %+v", w)
	}
	if got := run(t, wt, "git", "rev-parse", "MERGE_HEAD"); got != mergeHead {
		t.Errorf("MERGE_HEAD %s, want %s: the merge under way was not kept", got, mergeHead)
	}
	if got := run(t, wt, "git", "diff", "--cached", "--name-only", "--diff-filter=A"); got != "other.txt" {
		t.Errorf("staged additions %q, want the loop's other.txt kept", got)
	}
}

// TestCommitAllConcludesAMergeWithNothingStaged: a merge whose result is
// the branch as it was (nothing staged) is still concluded.
func TestCommitAllConcludesAMergeWithNothingStaged(t *testing.T) {
	root := project(t, "# Plan\n")
	run(t, root, "git", "switch", "-q", "-c", "other")
	must(t, os.WriteFile(filepath.Join(root, "same.txt"), []byte("other\n"), 0o644))
	run(t, root, "git", "commit", "-q", "-am", "other")
	run(t, root, "git", "switch", "-q", "main")
	must(t, os.WriteFile(filepath.Join(root, "same.txt"), []byte("main\n"), 0o644))
	run(t, root, "git", "commit", "-q", "-am", "main")
	git(context.Background(), root, "merge", "-q", "refs/heads/other")
	run(t, root, "git", "checkout", "--ours", "--", "same.txt")
	run(t, root, "git", "add", "same.txt")
	if staged := run(t, root, "git", "diff", "--cached", "--name-only"); staged != "" {
		t.Fatalf("staged %q, want nothing", staged)
	}
	must(t, commitAll(context.Background(), root, "concluded"))
	if parents := run(t, root, "git", "log", "-1", "--format=%P"); len(strings.Fields(parents)) != 2 {
		t.Errorf("HEAD's parents %q, want the merge concluded", parents)
	}
	if inMerge(context.Background(), root) {
		t.Error("a merge still under way")
	}
}
