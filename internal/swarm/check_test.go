//go:build unix

package swarm

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// countingGit puts a git first on PATH that notes the arguments of every
// command gitrun runs (they carry core.hooksPath=/dev/null; the fake
// loops' own git does not) and runs the real git. It returns the
// commands noted so far, one line each. (t.Setenv: not in parallel.)
func countingGit(t *testing.T) (noted func() []string) {
	t.Helper()
	realGit, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed")
	}
	bin, calls := t.TempDir(), filepath.Join(t.TempDir(), "calls")
	script := "#!/bin/sh\ncase \"$*\" in *core.hooksPath=/dev/null*) echo \"$*\" >> " + calls + ";; esac\nexec " + realGit + " \"$@\"\n"
	must(t, os.WriteFile(filepath.Join(bin, "git"), []byte(script), 0o755))
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	noted = func() []string {
		b, _ := os.ReadFile(calls)
		return lines(string(b))
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the git commands gitrun ran:\n%s", strings.Join(noted(), "\n"))
		}
	})
	return noted
}

// asked counts the noted commands with every word of want, and none of
// not.
func asked(noted []string, want string, not ...string) int {
	n := 0
next:
	for _, l := range noted {
		for _, w := range strings.Fields(want) {
			if !strings.Contains(l+" ", " "+w+" ") {
				continue next
			}
		}
		for _, w := range not {
			if strings.Contains(l+" ", " "+w+" ") {
				continue next
			}
		}
		n++
	}
	return n
}

// checkedSwarm is a swarm for root as prepare leaves it for the checks
// (the root's common folder known), with a worker's worktree made as
// start makes it and, with scratch, the scratch worktree as tryMerge
// makes it.
func checkedSwarm(t *testing.T, root string, scratch bool) *swarm {
	t.Helper()
	s := &swarm{o: Options{Root: root}.withDefaults(), dir: filepath.Join(root, dir), base: "main"}
	var err error
	if s.common, err = rootCommon(context.Background(), root); err != nil {
		t.Fatal(err)
	}
	run(t, root, "git", "worktree", "add", "-q", "-b", branch(1), filepath.Join(s.dir, workerName(1)), "HEAD")
	if scratch {
		run(t, root, "git", "worktree", "add", "-q", "--detach", s.scratch(), "refs/heads/main")
	}
	return s
}

// TestCheckAsksGitOnce: a worker's worktree is checked with one `git
// rev-parse` for its git folder and common folder and one symbolic-ref
// for its branch, the scratch worktree with one rev-parse that gives its
// HEAD too; the root's common folder is not asked again. Nothing of a
// worktree is remembered: a .git file pointed at the root, or a gitdir
// file naming another worktree, after a check that passed, is refused
// with the words it always had, and passes again once put back.
func TestCheckAsksGitOnce(t *testing.T) {
	ctx := context.Background()
	root := projectIn(t, t.TempDir(), "# Plan\n")
	s := checkedSwarm(t, root, true)
	noted := countingGit(t)

	if err := s.checkWorktree(ctx, workerName(1), branch(1)); err != nil {
		t.Fatalf("the worker's own worktree: %v", err)
	}
	tip, err := s.checkScratch(ctx)
	if err != nil {
		t.Fatalf("the scratch worktree: %v", err)
	}
	if want := run(t, root, "git", "rev-parse", "main"); tip != want {
		t.Errorf("the scratch's tip %q, want main's %s", tip, want)
	}
	n := noted()
	if got := asked(n, "rev-parse --absolute-git-dir --git-common-dir"); got != 2 || asked(n, "rev-parse") != 2 {
		t.Errorf("rev-parse asked %d times (%d for both folders at once), want once per worktree", asked(n, "rev-parse"), got)
	}
	if got := asked(n, "symbolic-ref"); got != 1 {
		t.Errorf("symbolic-ref asked %d times, want once, for the worker's branch", got)
	}

	wt := filepath.Join(s.dir, workerName(1))
	dotGit, err := os.ReadFile(filepath.Join(wt, ".git"))
	must(t, err)
	must(t, os.WriteFile(filepath.Join(wt, ".git"), []byte("gitdir: "+filepath.Join(root, ".git")+"\n"), 0o644))
	if err := s.checkWorktree(ctx, workerName(1), branch(1)); err == nil || !strings.Contains(err.Error(), "its git folder is "+s.common+", not one of") {
		t.Errorf("a .git file pointed at the root after a passing check: %v", err)
	}
	must(t, os.WriteFile(filepath.Join(wt, ".git"), dotGit, 0o644))
	if err := s.checkWorktree(ctx, workerName(1), branch(1)); err != nil {
		t.Errorf("the .git file put back: %v", err)
	}
	back := filepath.Join(s.common, "worktrees", workerName(1), "gitdir")
	own, err := os.ReadFile(back)
	must(t, err)
	must(t, os.WriteFile(back, []byte(filepath.Join(root, "elsewhere", ".git")+"\n"), 0o644))
	if err := s.checkWorktree(ctx, workerName(1), branch(1)); err == nil || !strings.Contains(err.Error(), "belongs to another worktree") {
		t.Errorf("a gitdir file naming another worktree: %v", err)
	}
	must(t, os.WriteFile(back, own, 0o644))
	run(t, wt, "git", "switch", "-q", "--detach")
	if err := s.checkWorktree(ctx, workerName(1), branch(1)); err == nil || !strings.Contains(err.Error(), "is on a detached HEAD, not on its branch") {
		t.Errorf("a detached worker: %v", err)
	}
}

// TestCheckFoldersWithANewline: where one answer cannot be split into
// lines (the project's path has a newline in it), each folder is asked
// on its own, as before, and the worktrees pass.
func TestCheckFoldersWithANewline(t *testing.T) {
	ctx := context.Background()
	root := filepath.Join(t.TempDir(), "a\nb")
	must(t, os.Mkdir(root, 0o755))
	projectIn(t, root, "# Plan\n")
	s := checkedSwarm(t, root, true)
	noted := countingGit(t)
	if err := s.checkWorktree(ctx, workerName(1), branch(1)); err != nil {
		t.Errorf("the worker's own worktree: %v", err)
	}
	tip, err := s.checkScratch(ctx)
	if err != nil || tip != "" {
		t.Errorf("the scratch worktree: tip %q, %v; want it passed and its tip left to be asked", tip, err)
	}
	n := noted()
	if got := asked(n, "rev-parse --absolute-git-dir", "--git-common-dir"); got != 2 {
		t.Errorf("--absolute-git-dir asked alone %d times, want once per worktree after the answer with a newline", got)
	}
}
