package engine

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"

	"github.com/ralphloop/ralph_loop/ralphdir"
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

// head is `git rev-parse HEAD` ("" without a commit). A plain repository's
// HEAD is read from its files; the loop asks for it on every iteration and
// a git process costs milliseconds. Anything else is asked of git.
func (g git) head(ctx context.Context) string {
	if id, ok := readHead(g.dir); ok {
		return id
	}
	s, err := g.run(ctx, "rev-parse", "HEAD")
	if err != nil {
		return ""
	}
	return s
}

// readHead resolves HEAD from the files of a plain repository: dir/.git is
// a directory (no worktree, submodule or reftable layout, no GIT_DIR) and
// HEAD is a commit id or names a loose or packed branch that holds one. ok
// is false whenever that is not so (an unborn branch included), and the
// caller asks git.
func readHead(dir string) (id string, ok bool) {
	if os.Getenv("GIT_DIR") != "" || os.Getenv("GIT_COMMON_DIR") != "" {
		return "", false
	}
	gitDir := filepath.Join(dir, ".git")
	if st, err := os.Stat(gitDir); err != nil || !st.IsDir() {
		return "", false
	}
	for _, other := range []string{"commondir", "reftable"} {
		if _, err := os.Lstat(filepath.Join(gitDir, other)); !errors.Is(err, fs.ErrNotExist) {
			return "", false
		}
	}
	b, err := ralphdir.ReadFileCapped(filepath.Join(gitDir, "HEAD"), ralphdir.StateCap)
	if err != nil {
		return "", false
	}
	head := strings.TrimSpace(string(b))
	if isObjectID(head) {
		return head, true
	}
	ref, symbolic := strings.CutPrefix(head, "ref: ")
	if !symbolic || !strings.HasPrefix(ref, "refs/heads/") || strings.Contains(ref, "..") {
		return "", false
	}
	b, err = ralphdir.ReadFileCapped(filepath.Join(gitDir, filepath.FromSlash(ref)), ralphdir.StateCap)
	if err == nil {
		id = strings.TrimSpace(string(b))
		return id, isObjectID(id)
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return "", false
	}
	packed, err := ralphdir.ReadFileCapped(filepath.Join(gitDir, "packed-refs"), ralphdir.LogCap)
	if err != nil {
		return "", false
	}
	for _, line := range strings.Split(string(packed), "\n") {
		if oid, name, found := strings.Cut(strings.TrimSpace(line), " "); found && name == ref && isObjectID(oid) {
			return oid, true
		}
	}
	return "", false
}

// isObjectID: a full SHA-1 or SHA-256 object id in lower-case hex.
func isObjectID(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
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
