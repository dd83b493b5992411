//go:build unix

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestCommitIgnoreHint runs the command the .gitignore line gives, from
// inside the project and from elsewhere (install.sh --project DIR): it
// commits .ralph/.gitignore and nothing else.
func TestCommitIgnoreHint(t *testing.T) {
	t.Parallel()
	for _, from := range []string{"project", "elsewhere", "project/src"} {
		t.Run(from, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			project := filepath.Join(root, "project", "my app")
			git := func(dir string, args ...string) string {
				t.Helper()
				cmd := exec.Command("git", args...)
				cmd.Dir = dir
				cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.invalid", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.invalid")
				out, err := cmd.CombinedOutput()
				if err != nil {
					t.Fatalf("git %v: %v\n%s", args, err, out)
				}
				return string(out)
			}
			for _, d := range []string{filepath.Join(project, ".ralph"), filepath.Join(project, "src"), filepath.Join(root, "elsewhere")} {
				if err := os.MkdirAll(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			git(project, "init", "-q")
			os.WriteFile(filepath.Join(project, "src", "a.txt"), []byte("a\n"), 0o644)
			git(project, "add", "-A")
			git(project, "commit", "-q", "-m", "init")
			os.WriteFile(filepath.Join(project, "src", "a.txt"), []byte("b\n"), 0o644)
			git(project, "add", "src/a.txt") // staged, and not for this commit
			ignore := filepath.Join(project, ".ralph", ".gitignore")
			os.WriteFile(ignore, []byte("status.json\n"), 0o644)

			cwd := filepath.Join(root, strings.Replace(from, "project", "project/my app", 1))
			hint := commitIgnoreHint(ignore, cwd)
			cmd := exec.Command("sh", "-c", hint)
			cmd.Dir = cwd
			cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.invalid", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.invalid")
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("%s: %v\n%s", hint, err, out)
			}
			if got := git(project, "show", "--name-only", "--format=%s", "HEAD"); got != commitIgnoreMessage+"\n\n.ralph/.gitignore\n" {
				t.Errorf("%s committed %q", hint, got)
			}
			if got := git(project, "status", "--porcelain"); got != "M  src/a.txt\n" {
				t.Errorf("after %s: status %q", hint, got)
			}
		})
	}
}
