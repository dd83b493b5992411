package gitrun

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestTreeMark: the same dirty tree gives the same mark however often it
// is asked; a further edit of a file that was already dirty, a new or
// changed untracked file, a deleted file and a commit each change it; the
// loop's own files and ignored files never do.
func TestTreeMark(t *testing.T) {
	dir, sh, write := testRepo(t)
	write("src/app.txt", "v1\n")
	write("src/keep.txt", "v1\n")
	write(".gitignore", ".ralph/logs/\nbuild/\n")
	write(".ralph/@fix_plan.md", "- [ ] A\n")
	sh("init", "-q", ".")
	sh("add", "-A")
	sh("commit", "-q", "-m", "init")
	g := Open(dir, filepath.Join(dir, ".ralph"), nil, nil)
	ctx := context.Background()
	mark := func() string {
		t.Helper()
		m, ok := g.Tree(ctx)
		if !ok {
			t.Fatal("Tree: git could not tell")
		}
		return m
	}
	clean := mark()

	steps := []struct {
		name    string
		do      func()
		changed bool
	}{
		{"nothing", func() {}, false},
		{"an edit", func() { write("src/app.txt", "v2\n") }, true},
		{"the same dirty tree asked again", func() {}, false},
		{"the dirty file edited again", func() { write("src/app.txt", "v3\n") }, true},
		{"the same bytes written again", func() { write("src/app.txt", "v3\n") }, false},
		{"the loop's own files", func() {
			write(".ralph/status.json", "{}\n")
			write(".ralph/.call_count", "3\n")
			write(".ralph/logs/ralph.log", "x\n")
		}, false},
		{"an ignored file", func() { write("build/out.bin", "x\n") }, false},
		{"a new untracked file", func() { write("src/new.txt", "a\n") }, true},
		{"the untracked file changed", func() { write("src/new.txt", "b\n") }, true},
		{"a deleted file", func() {
			if err := os.Remove(filepath.Join(dir, "src/keep.txt")); err != nil {
				t.Fatal(err)
			}
		}, true},
		{"a tick in the plan", func() { write(".ralph/@fix_plan.md", "- [x] A\n") }, true},
		{"all of it committed", func() { sh("add", "-A"); sh("commit", "-q", "-m", "work") }, true},
	}
	prev := clean
	for _, s := range steps {
		s.do()
		m := mark()
		if got := m != prev; got != s.changed {
			t.Errorf("%s: mark changed = %v, want %v", s.name, got, s.changed)
		}
		prev = m
	}
	if prev != clean {
		t.Errorf("a clean tree after the commit has mark %s, the clean tree at the start %s", prev, clean)
	}
}

// TestTreeMarkLinksAndPipes: a link in the tree is marked by its target's
// name, never followed; a named pipe is marked by what it is, never
// opened for reading (which would block).
func TestTreeMarkLinksAndPipes(t *testing.T) {
	dir, sh, write := testRepo(t)
	write("src/app.txt", "v1\n")
	sh("init", "-q", ".")
	sh("add", "-A")
	sh("commit", "-q", "-m", "init")
	g := Open(dir, filepath.Join(dir, ".ralph"), nil, nil)
	ctx := context.Background()
	if err := os.Symlink("/dev/zero", filepath.Join(dir, "zero")); err != nil {
		t.Fatal(err)
	}
	if err := mkfifo(filepath.Join(dir, "pipe")); err != nil {
		t.Skip("no named pipes here:", err)
	}
	a, ok := g.Tree(ctx)
	if !ok {
		t.Fatal("Tree: git could not tell")
	}
	if err := os.Remove(filepath.Join(dir, "zero")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/null", filepath.Join(dir, "zero")); err != nil {
		t.Fatal(err)
	}
	if b, _ := g.Tree(ctx); a == b {
		t.Error("a link pointed elsewhere did not change the mark")
	}
}

// mkfifo makes a named pipe with the system's mkfifo program.
func mkfifo(path string) error { return exec.Command("mkfifo", path).Run() }

// CommitsSince lists the commits after a commit, oldest first; none after
// HEAD itself or without a commit to start from.
func TestCommitsSince(t *testing.T) {
	dir, sh, write := testRepo(t)
	write("a.txt", "1\n")
	sh("init", "-q", ".")
	sh("add", "-A")
	sh("commit", "-q", "-m", "one")
	start := sh("rev-parse", "HEAD")
	var want []string
	for _, v := range []string{"2\n", "3\n"} {
		write("a.txt", v)
		sh("commit", "-qam", "more")
		want = append(want, sh("rev-parse", "HEAD"))
	}
	g := Open(dir, filepath.Join(dir, ".ralph"), nil, nil)
	ctx := context.Background()
	if got := g.CommitsSince(ctx, start); len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("CommitsSince(start) = %q, want %q", got, want)
	}
	if got := g.CommitsSince(ctx, want[1]); len(got) != 0 {
		t.Errorf("CommitsSince(HEAD) = %q, want none", got)
	}
	if got := g.CommitsSince(ctx, ""); len(got) != 0 {
		t.Errorf("CommitsSince(\"\") = %q, want none", got)
	}
}

// Tree only looks: it never refreshes and writes the index (which would
// take index.lock beside the agent's own git), even when a file's times
// changed and git would otherwise record them.
func TestTreeWritesNoIndex(t *testing.T) {
	dir, sh, write := testRepo(t)
	write("src/app.txt", "v1\n")
	sh("init", "-q", ".")
	sh("add", "-A")
	sh("commit", "-q", "-m", "init")
	index := filepath.Join(dir, ".git", "index")
	before, err := os.Stat(index)
	if err != nil {
		t.Fatal(err)
	}
	later := before.ModTime().Add(time.Hour)
	if err := os.Chtimes(filepath.Join(dir, "src/app.txt"), later, later); err != nil {
		t.Fatal(err)
	}
	if _, ok := Open(dir, filepath.Join(dir, ".ralph"), nil, nil).Tree(context.Background()); !ok {
		t.Fatal("Tree: git could not tell")
	}
	after, err := os.Stat(index)
	if err != nil {
		t.Fatal(err)
	}
	if !after.ModTime().Equal(before.ModTime()) || after.Size() != before.Size() {
		t.Error("Tree wrote the index")
	}
}
