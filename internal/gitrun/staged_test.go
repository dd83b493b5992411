package gitrun

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStagedDiffRemembered: the staged half of changes asks git only when
// the index or HEAD changed since the last call, and a file staged between
// two calls is counted by the second.
func TestStagedDiffRemembered(t *testing.T) {
	runs := countingGit(t)
	dir, sh, write := testRepo(t)
	stagedRuns := func() int { return runs("diff", "--numstat", "--cached") }

	write("a.txt", "a\n")
	write("b.txt", "b\n")
	sh("init", "-q", ".")
	sh("add", "-A")
	sh("commit", "-q", "-m", "init")
	start := sh("rev-parse", "HEAD")
	g := Open(dir, filepath.Join(dir, ".ralph"), nil, nil)
	ctx := context.Background()

	checkWith := func(g Repo, step string, wantFiles, wantRuns int) string {
		t.Helper()
		n, numstat, _, _ := g.Changes(ctx, start)
		if n != wantFiles {
			t.Errorf("%s: %d files changed, want %d\n%s", step, n, wantFiles, numstat)
		}
		if got := stagedRuns(); got != wantRuns {
			t.Errorf("%s: git diff --cached ran %d times in all, want %d", step, got, wantRuns)
		}
		return numstat
	}
	check := func(step string, wantFiles, wantRuns int) string {
		t.Helper()
		return checkWith(g, step, wantFiles, wantRuns)
	}
	// A tree whose status shows nothing staged needs no staged diff at
	// all (status.go); one that does asks git once per index and HEAD.
	first := check("clean tree", 0, 0)
	if again := check("nothing changed", 0, 0); again != first {
		t.Errorf("remembered diff %q, want %q", again, first)
	}
	write("a.txt", "a changed\n")
	check("unstaged edit", 1, 0)
	sh("add", "a.txt")
	check("edit staged", 1, 1)
	check("nothing changed since", 1, 1)
	write("b.txt", "b changed\n")
	sh("add", "b.txt")
	staged := check("second file staged", 2, 2)
	if !strings.Contains(staged, "b.txt") {
		t.Errorf("staged diff misses b.txt:\n%s", staged)
	}
	sh("commit", "-q", "-m", "both")
	// HEAD moved: the commits since start count, nothing is staged.
	check("committed", 2, 2)
	write("a.txt", "a again\n")
	sh("add", "a.txt")
	check("staged after the commit", 2, 3)
	check("nothing changed after the commit", 2, 3)

	// With GIT_INDEX_FILE in the loop's environment, git is asked every
	// time.
	withIndex := Open(dir, filepath.Join(dir, ".ralph"), append(os.Environ(), "GIT_INDEX_FILE="+filepath.Join(dir, ".git", "index")), nil)
	checkWith(withIndex, "GIT_INDEX_FILE", 2, 4)
	checkWith(withIndex, "GIT_INDEX_FILE again", 2, 5)
}
