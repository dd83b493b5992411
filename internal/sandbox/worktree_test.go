package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func gitIn(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@x", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@x")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// TestLinkedWorktree: a real `git worktree add` worktree gives its own git
// folder, the repository's and its branch's folder; an ordinary
// repository gives none; a .git file rewritten to reach another folder
// (the main repository's own .git, another worktree's git folder, any
// folder) shows none of it: refused, or (no worktree's folder at all)
// nothing bound.
func TestLinkedWorktree(t *testing.T) {
	root := t.TempDir()
	main := filepath.Join(root, "main")
	mustWrite(t, filepath.Join(main, "a.txt"), "a\n")
	gitIn(t, main, "init", "-q", "-b", "main", ".")
	gitIn(t, main, "add", "-A")
	gitIn(t, main, "commit", "-qm", "init")
	wt := filepath.Join(main, ".swarm", "worker-1")
	gitIn(t, main, "worktree", "add", "-q", "-b", "swarm/worker-1", wt, "HEAD")
	other := filepath.Join(main, ".swarm", "worker-2")
	gitIn(t, main, "worktree", "add", "-q", "-b", "swarm/worker-2", other, "HEAD")

	if g, err := LinkedWorktree(main); err != nil || g.Dir != "" {
		t.Errorf("the main repository: %+v, %v", g, err)
	}
	g, err := LinkedWorktree(wt)
	common := realPath(filepath.Join(main, ".git"))
	if err != nil || g.Common != common || g.Dir != filepath.Join(common, "worktrees", "worker-1") || g.Branch != "refs/heads/swarm" || g.Dot != filepath.Join(wt, ".git") {
		t.Fatalf("worker-1: %+v, %v", g, err)
	}
	g.Write = true
	var paths []string
	for _, m := range g.mounts(wt) {
		paths = append(paths, strings.TrimPrefix(m.path, common)+map[bool]string{true: " rw", false: " ro"}[m.write])
	}
	want := []string{" ro", "/worktrees/worker-1 rw", "/objects rw", "/refs/heads/swarm rw", "/logs/refs/heads/swarm rw",
		"/worktrees/worker-1/commondir ro", "/worktrees/worker-1/gitdir ro", filepath.Join(wt, ".git") + " ro"}
	if !slices.Equal(paths, want) {
		t.Errorf("mounts %q, want %q", paths, want)
	}

	dot := filepath.Join(wt, ".git")
	for name, content := range map[string]string{
		"the main repository's .git": "gitdir: " + filepath.Join(main, ".git"),
		"another worktree's folder":  "gitdir: " + filepath.Join(common, "worktrees", "worker-2"),
		"any folder":                 "gitdir: " + root,
		"not a gitdir line":          "hello",
		"a worktree's folder, moved": "gitdir: " + filepath.Join(root, "elsewhere"),
	} {
		if err := os.WriteFile(dot, []byte(content+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if g, err := LinkedWorktree(wt); err == nil && g.Dir != "" {
			t.Errorf("%s: accepted %+v", name, g)
		}
	}
}
