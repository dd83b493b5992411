package engine

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"strings"
	"sync"
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

// changes reports, for the files changed since start (the commits
// start..HEAD when HEAD moved, then unstaged and staged changes), how many
// distinct files changed and the `git diff --numstat` text of those three
// diffs in that order. Untracked files are not counted, as the reference
// counts them. One numstat per diff serves both answers: the loop pays for
// every git process on every iteration.
func (g git) changes(ctx context.Context, start string) (files int, numstat string) {
	// The three look-ups are independent: run them side by side.
	var head, work, staged string
	var wg sync.WaitGroup
	wg.Go(func() { head = g.head(ctx) })
	wg.Go(func() { work, _ = g.run(ctx, "diff", "--numstat") })
	wg.Go(func() { staged, _ = g.run(ctx, "diff", "--numstat", "--cached") })
	wg.Wait()
	var parts []string
	if start != "" && head != "" && head != start {
		out, _ := g.run(ctx, "diff", "--numstat", start, head)
		parts = append(parts, out)
	}
	parts = append(parts, work, staged)
	numstat = strings.Join(parts, "\n")

	set := map[string]bool{}
	for _, line := range strings.Split(numstat, "\n") {
		if p := numstatPath(line); p != "" {
			set[p] = true
		}
	}
	return len(set), numstat
}

// numstatPath is the path `git diff --name-only` prints for one numstat
// line ("added<TAB>deleted<TAB>path"): for a rename, the new path, whether
// numstat wrote it as "old => new" or "dir/{old => new}/rest".
func numstatPath(line string) string {
	fields := strings.SplitN(line, "\t", 3)
	if len(fields) != 3 {
		return ""
	}
	p := strings.TrimSpace(fields[2])
	lb, arrow := strings.Index(p, "{"), strings.Index(p, " => ")
	switch {
	case arrow < 0:
		return p
	case lb >= 0 && lb < arrow:
		rb := strings.Index(p[arrow:], "}")
		if rb < 0 {
			return p
		}
		rb += arrow
		joined := p[:lb] + p[arrow+len(" => "):rb] + p[rb+1:]
		// An empty side ("dir/{ => sub}/f", "{sub => }/f") leaves a double
		// or a leading slash; git paths have neither.
		return strings.TrimPrefix(strings.Replace(joined, "//", "/", 1), "/")
	default:
		return p[arrow+len(" => "):]
	}
}
