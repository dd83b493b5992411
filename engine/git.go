package engine

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"strings"
)

// git runs git in dir and returns its trimmed stdout.
type git struct{ dir string }

func (g git) run(ctx context.Context, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = g.dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		if msg := strings.TrimSpace(errb.String()); msg != "" {
			return "", errors.New(msg)
		}
		return "", err
	}
	return strings.TrimRight(out.String(), "\n"), nil
}

// available reports whether git is installed.
func (g git) available() bool {
	_, err := exec.LookPath("git")
	return err == nil
}

func (g git) isRepo(ctx context.Context) bool {
	_, err := g.run(ctx, "rev-parse", "--git-dir")
	return err == nil
}

func (g git) head(ctx context.Context) string {
	s, err := g.run(ctx, "rev-parse", "HEAD")
	if err != nil {
		return ""
	}
	return s
}

func (g git) porcelain(ctx context.Context) string {
	s, _ := g.run(ctx, "status", "--porcelain")
	return s
}

// changedFiles counts the files changed since start: the union of the
// commits start..HEAD (when HEAD moved), unstaged and staged changes, as
// the reference counts them (untracked files are not counted).
func (g git) changedFiles(ctx context.Context, start string) int {
	set := map[string]bool{}
	add := func(out string) {
		for _, l := range strings.Split(out, "\n") {
			if l = strings.TrimSpace(l); l != "" {
				set[l] = true
			}
		}
	}
	if head := g.head(ctx); start != "" && head != "" && head != start {
		out, _ := g.run(ctx, "diff", "--name-only", start, head)
		add(out)
	}
	out, _ := g.run(ctx, "diff", "--name-only")
	add(out)
	out, _ = g.run(ctx, "diff", "--name-only", "--cached")
	add(out)
	return len(set)
}

// numstat returns the `git diff --numstat` text for start..HEAD (when HEAD
// moved), the working tree and the index, in that order.
func (g git) numstat(ctx context.Context, start string) string {
	var parts []string
	if head := g.head(ctx); start != "" && head != "" && head != start {
		out, _ := g.run(ctx, "diff", "--numstat", start, head)
		parts = append(parts, out)
	}
	out, _ := g.run(ctx, "diff", "--numstat")
	parts = append(parts, out)
	out, _ = g.run(ctx, "diff", "--numstat", "--cached")
	parts = append(parts, out)
	return strings.Join(parts, "\n")
}
