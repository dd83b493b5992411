package gitrun

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGitDirAsksTheTopOnce: GitDir's yes comes from one `git rev-parse
// --show-toplevel`, whose answer the change queries then use without
// asking again; where that fails, --git-dir gives the answer and its words
// as before: yes inside .git (no work tree), no outside a repository.
func TestGitDirAsksTheTopOnce(t *testing.T) {
	runs := countingGit(t)
	dir, sh, write := testRepo(t)
	write("a.txt", "a\n")
	sh("init", "-q", ".")
	sh("add", "-A")
	sh("commit", "-q", "-m", "init")
	write("a.txt", "changed\n")
	ctx := context.Background()

	g := open(dir, filepath.Join(dir, ".ralph"), nil)
	if err := g.GitDir(ctx); err != nil {
		t.Fatalf("GitDir in a repository: %v", err)
	}
	if n, _, _, ok := g.Changes(ctx, ""); !ok || n != 1 {
		t.Errorf("Changes: %d files (%v), want 1", n, ok)
	}
	if n := runs("rev-parse", "--show-toplevel"); n != 1 {
		t.Errorf("--show-toplevel asked %d times for GitDir and Changes, want 1", n)
	}
	if n := runs("rev-parse", "--git-dir"); n != 0 {
		t.Errorf("--git-dir asked %d times after --show-toplevel said yes, want 0", n)
	}

	if err := open(filepath.Join(dir, ".git"), "", nil).GitDir(ctx); err != nil {
		t.Errorf("GitDir inside .git (no work tree): %v, want nil as --git-dir says", err)
	}
	if n := runs("rev-parse", "--git-dir"); n != 1 {
		t.Errorf("--git-dir asked %d times inside .git, want 1 (after --show-toplevel failed)", n)
	}
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "x"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	err := open(outside, "", []string{"GIT_CEILING_DIRECTORIES=" + filepath.Dir(outside)}).GitDir(ctx)
	if err == nil || !strings.Contains(err.Error(), "not a git repository") {
		t.Errorf("GitDir outside a repository: %v, want git's 'not a git repository'", err)
	}
}
