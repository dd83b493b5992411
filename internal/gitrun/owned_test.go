package gitrun

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestGitLeavesOutLoopOwnedFiles: a commit or a working-tree change of the
// loop's own files under .ralph/ is no change; the user's files under
// .ralph/ (the plan, the prompt, specs/) and the project's files are.
func TestGitLeavesOutLoopOwnedFiles(t *testing.T) {
	t.Parallel()
	dir, sh, write := testRepo(t)

	owned := []string{".ralph/status.json", ".ralph/.call_count", ".ralph/.circuit_breaker_state", ".ralph/.ralph_loop.lock", ".ralph/live.log"}
	user := []string{".ralph/@fix_plan.md", ".ralph/PROMPT.md", ".ralph/specs/a.md", "src/app.txt"}
	for _, f := range append(append([]string{}, owned...), user...) {
		write(f, "v1\n")
	}
	write(".gitignore", ".ralph/logs/\n")
	sh("init", "-q", ".")
	sh("add", "-A")
	sh("commit", "-q", "-m", "init")
	g := Open(dir, filepath.Join(dir, ".ralph"), nil, nil)
	ctx := context.Background()

	// An agent's `git add -A && git commit` of the loop's files only.
	start := sh("rev-parse", "HEAD")
	for _, f := range owned {
		write(f, "v2\n")
	}
	write(".ralph/.error_history", "{}\n") // untracked, then committed
	sh("add", "-A")
	sh("commit", "-q", "-m", "loop files")
	for _, f := range owned {
		write(f, "v3\n") // and the loop rewrote them since
	}
	if n, numstat, _, _ := g.Changes(ctx, start); n != 0 || strings.TrimSpace(numstat) != "" {
		t.Errorf("loop-owned commit: changes = %d, numstat %q; want 0", n, numstat)
	}
	if p := g.Porcelain(ctx); p != "" {
		t.Errorf("porcelain = %q, want it empty", p)
	}
	if g.CommittedBeyondOwned(ctx, start, sh("rev-parse", "HEAD")) {
		t.Error("committedBeyondOwned = true for a commit of loop-owned files only")
	}

	// The user's files count, committed or not.
	mid := sh("rev-parse", "HEAD")
	write(".ralph/@fix_plan.md", "v2\n")
	write(".ralph/specs/a.md", "v2\n")
	sh("add", "-A")
	sh("commit", "-q", "-m", "work")
	write(".ralph/PROMPT.md", "v2\n")
	write("src/app.txt", "v2\n")
	if n, _, _, _ := g.Changes(ctx, start); n != 4 {
		t.Errorf("user changes = %d, want 4", n)
	}
	if !g.CommittedBeyondOwned(ctx, mid, sh("rev-parse", "HEAD")) {
		t.Error("committedBeyondOwned = false for a commit of the plan and a spec")
	}
	if p := g.Porcelain(ctx); p != " M .ralph/PROMPT.md\n M src/app.txt" {
		t.Errorf("porcelain = %q", p)
	}
}
