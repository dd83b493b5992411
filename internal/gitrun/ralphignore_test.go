package gitrun

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/ralphloop/ralph_loop/internal/ralphdir"
)

// TestTreeBehindRalphGitIgnore: behind the .ralph/.gitignore the loop
// writes (`/*` and the files a person keeps), the tree's mark still moves
// for the person's files under .ralph/ (a tick in the plan, a new spec or
// prompt, an edit of .ralphrc or of bmalph's scripts) and never for the
// loop's own files, tracked or not, nor for other files there.
func TestTreeBehindRalphGitIgnore(t *testing.T) {
	dir, sh, write := testRepo(t)
	write("src/app.txt", "v1\n")
	write(".ralph/@fix_plan.md", "- [ ] A\n")
	write(".ralph/PROMPT.md", "Do it.\n")
	write(".ralph/.ralphrc", "MAX_LOOPS=3\n")
	write(".ralph/ralph_loop.sh", "exec ralph_loop\n")
	write(".ralph/status.json", "{}\n") // tracked from before the .gitignore
	if _, err := ralphdir.New(filepath.Join(dir, ".ralph"), nil).EnsureGitIgnore(); err != nil {
		t.Fatal(err)
	}
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
	last := mark()
	for _, step := range []struct {
		name    string
		do      func()
		changed bool
	}{
		{"the loop's own files", func() {
			write(".ralph/status.json", `{"loop_count":2}`+"\n")
			write(".ralph/.call_count", "3\n")
			write(".ralph/.circuit_breaker_state", "{}\n")
			write(".ralph/logs/ralph.log", "x\n")
			write(".ralph/live.log.1", "x\n")
		}, false},
		{"a file a later version may write there", func() { write(".ralph/.new_state", "x\n") }, false},
		{"a tick in the plan", func() { write(".ralph/@fix_plan.md", "- [x] A\n") }, true},
		{"a new spec", func() { write(".ralph/specs/b.md", "spec\n") }, true},
		{"a new prompt file", func() { write(".ralph/ALT_PROMPT.md", "alt\n") }, true},
		{".ralphrc edited", func() { write(".ralph/.ralphrc", "MAX_LOOPS=4\n") }, true},
		{"bmalph's script edited", func() { write(".ralph/ralph_loop.sh", "exec ralph_loop --verbose\n") }, true},
		{"a new folder's file", func() { write(".ralph/lib/x.sh", "x\n") }, true},
		{"the project's file", func() { write("src/app.txt", "v2\n") }, true},
	} {
		step.do()
		now := mark()
		if (now != last) != step.changed {
			t.Errorf("%s: mark changed = %v, want %v", step.name, now != last, step.changed)
		}
		last = now
	}
}
