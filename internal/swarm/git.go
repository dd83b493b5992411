package swarm

import (
	"context"
	"errors"
	"strings"

	"github.com/ralphloop/ralph_loop/internal/gitrun"
)

// git runs one git command in dir through gitrun, so that no program the
// repository's configuration names (hooks, fsmonitor, filters) runs.
func git(ctx context.Context, dir string, args ...string) (string, error) {
	out, err := gitrun.Run(ctx, dir, args...)
	if err != nil {
		return out, errors.New("git " + args[0] + " in " + dir + ": " + err.Error())
	}
	return out, nil
}

// gitOK runs git and reports only whether it exited 0.
func gitOK(ctx context.Context, dir string, args ...string) bool {
	_, err := gitrun.Run(ctx, dir, args...)
	return err == nil
}

// lines splits git's output into its non-empty lines.
func lines(out string) []string {
	var ls []string
	for _, l := range strings.Split(out, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			ls = append(ls, l)
		}
	}
	return ls
}

// unmerged lists the paths a merge left in conflict.
func unmerged(ctx context.Context, dir string) []string {
	out, _ := gitrun.Run(ctx, dir, "diff", "--name-only", "--diff-filter=U")
	return lines(out)
}

// inMerge reports whether a merge is under way in dir.
func inMerge(ctx context.Context, dir string) bool {
	return gitOK(ctx, dir, "rev-parse", "-q", "--verify", "MERGE_HEAD")
}

// commitAll commits every change in dir (what .gitignore keeps out stays
// out), with msg; nothing to commit is no error. During a merge it
// concludes the merge. (Whether a merge is under way is asked only when
// nothing is staged: staged changes are committed either way.)
func commitAll(ctx context.Context, dir, msg string) error {
	if _, err := git(ctx, dir, "add", "-A"); err != nil {
		return err
	}
	if gitOK(ctx, dir, "diff", "--cached", "--quiet") && !inMerge(ctx, dir) {
		return nil
	}
	_, err := git(ctx, dir, "commit", "-q", "--no-verify", "-m", msg)
	return err
}

// isRalph is a path under .ralph/, the loop's folder, which a merge keeps
// as the main branch has it.
func isRalph(p string) bool { return p == ".ralph" || strings.HasPrefix(p, ".ralph/") }

// outside are the paths not under .ralph/.
func outside(paths []string) []string {
	var out []string
	for _, p := range paths {
		if !isRalph(p) {
			out = append(out, p)
		}
	}
	return out
}
