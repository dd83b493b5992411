package gitrun

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// countingGit puts a git on PATH that notes the arguments of every command
// the package runs (those with its -c overrides) in a file, then runs the
// real git (and its listings of the repository's configuration); runs counts the noted commands that contain all of words.
func countingGit(t *testing.T) (runs func(words ...string) int) {
	t.Helper()
	realGit, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed")
	}
	bin, calls := t.TempDir(), filepath.Join(t.TempDir(), "calls")
	script := "#!/bin/sh\ncase \"$*\" in *core.hooksPath=/dev/null*|*--show-scope*) echo \"$*\" >> " + calls + ";; esac\n"
	script += "exec " + realGit + " \"$@\"\n"
	if err := os.WriteFile(filepath.Join(bin, "git"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Cleanup(func() {
		if t.Failed() {
			b, _ := os.ReadFile(calls)
			t.Logf("the git commands run:\n%s", b)
		}
	})
	return func(words ...string) int {
		b, _ := os.ReadFile(calls)
		n := 0
	lines:
		for _, l := range strings.Split(string(b), "\n") {
			for _, w := range words {
				if !strings.Contains(l+" ", w+" ") {
					continue lines
				}
			}
			n++
		}
		return n
	}
}

// TestChangesMarksTheTree: Changes answers the tree's mark from the same
// `git status` that picks its diffs, the mark Tree gives alone.
func TestChangesMarksTheTree(t *testing.T) {
	runs := countingGit(t)
	dir, sh, write := testRepo(t)
	write("a.txt", "a\n")
	sh("init", "-q", ".")
	sh("add", "-A")
	sh("commit", "-q", "-m", "init")
	write("a.txt", "changed\n")
	g := open(dir, filepath.Join(dir, ".ralph"), nil)
	ctx := context.Background()

	n, _, mark, ok := g.Changes(ctx, "")
	if !ok || mark == "" || n != 1 {
		t.Errorf("Changes: %d files, mark %q (%v); want 1 file and a mark", n, mark, ok)
	}
	if n := runs("status"); n != 1 {
		t.Errorf("git status ran %d times for the changes and the mark, want 1", n)
	}
	if m, _ := g.Tree(ctx); m != mark {
		t.Errorf("the same tree asked again: mark %q, want %q", m, mark)
	}
	if n := runs("status"); n != 2 {
		t.Errorf("git status ran %d times after a question asked alone, want 2", n)
	}
}

// TestChangesAsksOnlyTheDiffsThatCanPrint: Changes runs the working
// tree's diff only when the status shows a changed file that is not the
// loop's own, or, beside the status, when the last call's did; and CommittedBeyondOwned reads the commits' paths from the
// numstat Changes just ran, unless a path there cannot be read back
// exactly (a rename).
func TestChangesAsksOnlyTheDiffsThatCanPrint(t *testing.T) {
	runs := countingGit(t)
	dir, sh, write := testRepo(t)
	write("a.txt", "a\n")
	write("b.txt", "b\n")
	write(".ralph/status.json", "{}\n") // a loop-owned file an agent committed
	sh("init", "-q", ".")
	sh("add", "-A")
	sh("commit", "-q", "-m", "init")
	start := sh("rev-parse", "HEAD")
	g := Open(dir, filepath.Join(dir, ".ralph"), nil, nil)
	ctx := context.Background()
	workDiffs := func() int {
		return runs("diff", "--numstat") - runs("diff", "--numstat", "--cached") - runs("diff", "--numstat", start)
	}

	step := func(name string, wantFiles, wantWorkDiffs int) {
		t.Helper()
		if n, numstat, _, _ := g.Changes(ctx, start); n != wantFiles {
			t.Errorf("%s: %d files changed, want %d\n%s", name, n, wantFiles, numstat)
		}
		if n := workDiffs(); n != wantWorkDiffs {
			t.Errorf("%s: git diff --numstat (working tree) ran %d times in all, want %d", name, n, wantWorkDiffs)
		}
	}
	step("clean tree", 0, 0)
	write(".ralph/status.json", "{\"loop\": 2}\n")
	step("only the loop's own file changed", 0, 0)
	write("a.txt", "a changed\n")
	step("an edit", 1, 1)
	write("c.txt", "untracked\n")
	step("an untracked file too (never counted)", 1, 2)

	sh("add", "a.txt")
	sh("commit", "-q", "-m", "a")
	head := sh("rev-parse", "HEAD")
	// The last loop had an edit: the working tree's diff started beside
	// the status (and its answer was dropped, the tree being clean).
	step("committed, the untracked file left", 1, 3)
	if !g.CommittedBeyondOwned(ctx, start, head) {
		t.Error("a commit of a.txt: not beyond the loop's own files")
	}
	if n := runs("diff", "--name-only"); n != 0 {
		t.Errorf("git diff --name-only ran %d times for the range Changes just read, want 0", n)
	}

	sh("mv", "b.txt", "b2.txt")
	sh("commit", "-q", "-m", "rename")
	head = sh("rev-parse", "HEAD")
	step("a rename committed (counted once, by its new name)", 2, 3)
	if !g.CommittedBeyondOwned(ctx, start, head) {
		t.Error("a rename: not beyond the loop's own files")
	}
	if n := runs("diff", "--name-only"); n != 1 {
		t.Errorf("git diff --name-only ran %d times after a rename, want 1 (a renamed path is not read back)", n)
	}

	write(".ralph/status.json", "{\"loop\": 3}\n")
	sh("add", ".ralph/status.json")
	sh("commit", "-q", "-m", "state")
	if g.CommittedBeyondOwned(ctx, head, sh("rev-parse", "HEAD")) {
		t.Error("a commit of the loop's own file alone: beyond the loop's own files")
	}
}
