package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// WorktreeGit is the git folders of a linked worktree (git worktree add;
// each --swarm worker's), which live in the main repository's .git, out of
// the worktree: without them git in the sandbox finds no repository.
type WorktreeGit struct {
	// Dot is the worktree's .git file, shown read-only over itself: the
	// agent cannot point the worktree (and the loop's git) at another
	// repository.
	Dot string
	// Dir is the worktree's own git folder (COMMON/worktrees/NAME: its
	// HEAD, index and logs); Common the repository's (objects, refs,
	// config, hooks).
	Dir, Common string
	// Branch is the folder of the branch the worktree has checked out,
	// relative to Common (refs/heads/swarm for swarm/worker-1); "" for a
	// detached HEAD.
	Branch string
	// Write: the agent commits. Dir, the object store, the branch's folder
	// and its reflogs are writable; Common's config, hooks, packed-refs and
	// every other ref stay read-only, and so do Dir's commondir and gitdir
	// files. Without Write every one of them is read-only (the merge
	// queue's gates).
	Write bool
}

// gitMount is one path of a WorktreeGit shown in the sandbox.
type gitMount struct {
	path  string
	write bool
}

// LinkedWorktree is the git folders of the worktree at project, or a zero
// WorktreeGit when project/.git is a folder (an ordinary repository),
// missing, or a file that names a git folder of no linked worktree (a
// submodule's, a --separate-git-dir's: nothing is shown of it). A linked
// worktree's .git file the sandbox cannot trust is an error: one that
// names a git folder that is not COMMON/worktrees/NAME, or whose gitdir
// file does not name this worktree back (a .git file an agent rewrote to
// reach another repository's folders).
func LinkedWorktree(project string) (WorktreeGit, error) {
	dot := filepath.Join(project, ".git")
	fi, err := os.Lstat(dot)
	if err != nil || fi.IsDir() {
		return WorktreeGit{}, nil
	}
	bad := func(why string) (WorktreeGit, error) {
		return WorktreeGit{}, fmt.Errorf("sandbox: %s %s; the sandbox binds a worktree's git folders only for a worktree git made (git worktree add)", dot, why)
	}
	if !fi.Mode().IsRegular() {
		return bad("is neither a folder nor a file")
	}
	b, err := readSmall(dot)
	if err != nil {
		return WorktreeGit{}, fmt.Errorf("sandbox: %w", err)
	}
	gitdir, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
	if !ok {
		return bad("does not name a git folder (gitdir: …)")
	}
	dir := strings.TrimSpace(gitdir)
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(project, dir)
	}
	dir = realPath(dir)
	common := ""
	if c, err := readSmall(filepath.Join(dir, "commondir")); err == nil {
		common = strings.TrimSpace(string(c))
		if !filepath.IsAbs(common) {
			common = filepath.Join(dir, common)
		}
		common = realPath(common)
	}
	if common == "" {
		return WorktreeGit{}, nil
	}
	if filepath.Dir(dir) != filepath.Join(common, "worktrees") {
		return bad("names " + dir + ", which is not a worktree's folder in a repository")
	}
	back, err := readSmall(filepath.Join(dir, "gitdir"))
	if err != nil {
		return bad("names " + dir + ", which does not name it back")
	}
	backPath := strings.TrimSpace(string(back))
	if !filepath.IsAbs(backPath) {
		backPath = filepath.Join(dir, backPath)
	}
	if a, err1 := os.Stat(backPath); err1 != nil || !os.SameFile(a, mustStat(dot)) {
		return bad("names " + dir + ", which names another worktree (" + backPath + ")")
	}
	for _, need := range []string{"objects", "refs"} {
		if fi, err := os.Stat(filepath.Join(common, need)); err != nil || !fi.IsDir() {
			return bad("names a repository without " + need + "/ (" + common + ")")
		}
	}
	g := WorktreeGit{Dot: dot, Dir: dir, Common: common}
	if head, err := readSmall(filepath.Join(dir, "HEAD")); err == nil {
		if ref, ok := strings.CutPrefix(strings.TrimSpace(string(head)), "ref: "); ok && strings.HasPrefix(ref, "refs/heads/") && !strings.Contains(ref, "..") {
			g.Branch = filepath.Dir(filepath.FromSlash(ref))
		}
	}
	return g, nil
}

// readSmall reads a git pointer file: a regular file of at most 4 KiB.
func readSmall(path string) ([]byte, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() || fi.Size() > 4096 {
		return nil, errors.New(path + " is not a small regular file")
	}
	b, err := os.ReadFile(path)
	return bytes.TrimSpace(b), err
}

func mustStat(p string) os.FileInfo {
	fi, _ := os.Stat(p)
	return fi
}

// mounts are g's folders as the sandbox shows them, in order (a later one
// shows through an earlier one): the repository read-only, then, for an
// agent that commits, the worktree's own folder, the object store, the
// branch's folder and its reflogs writable, with the worktree's pointer
// files read-only over themselves.
func (g WorktreeGit) mounts(project string) []gitMount {
	if g.Dir == "" {
		return nil
	}
	out := []gitMount{{path: g.Common}}
	if g.Write {
		out = append(out, gitMount{path: g.Dir, write: true}, gitMount{path: filepath.Join(g.Common, "objects"), write: true})
		if g.Branch != "" {
			for _, d := range []string{filepath.Join(g.Common, g.Branch), filepath.Join(g.Common, "logs", g.Branch)} {
				if fi, err := os.Lstat(d); err == nil && fi.IsDir() {
					out = append(out, gitMount{path: d, write: true})
				}
			}
		}
		for _, f := range []string{"commondir", "gitdir"} {
			if exists(filepath.Join(g.Dir, f)) {
				out = append(out, gitMount{path: filepath.Join(g.Dir, f)})
			}
		}
	}
	if g.Dot != "" && under(g.Dot, project) {
		out = append(out, gitMount{path: g.Dot})
	}
	return out
}

// describe is the line Policy.Describe adds for a linked worktree.
func (g WorktreeGit) describe() string {
	if !g.Write {
		return "the repository's git folders " + g.Common + " read-only"
	}
	what := []string{"worktrees/" + filepath.Base(g.Dir), "objects/"}
	if g.Branch != "" {
		what = append(what, filepath.ToSlash(g.Branch)+"/ (its branch's folder)")
	}
	return "in " + g.Common + " only " + strings.Join(what, ", ") + " (the repository's config, hooks and other refs read-only)"
}
