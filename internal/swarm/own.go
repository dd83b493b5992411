package swarm

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ralphloop/ralph_loop/internal/gitrun"
	"github.com/ralphloop/ralph_loop/internal/ralphdir"
)

// The swarm's own entries under .swarm/, besides stateFile, the budget's
// files (budget.go) and each worker's worktree and log.
const (
	swarmLock = ".swarm.lock" // one --swarm per project
	queueDir  = ".queue"      // the merge queue's scratch worktree is under it
)

// A repository is not trusted, and .swarm/ is in it: a clone can bring a
// link as a worker's log (appends anywhere), as a lock (creates a file
// anywhere), as .queue (a recursive delete of <target>/merge), or a
// swarm.json and worker folders whose .git file names the root repository
// (the queue's commit of the worker's work would land on the person's
// branch). So the swarm takes nothing there on trust: a repository that
// tracks files under .swarm/ is refused, every entry the swarm would use
// must be what the swarm makes (a regular file with one name, a real
// folder) before anything is written, the files are opened without
// following a link, and a worktree is used only once git's own records
// (the admin folder under the common git folder, whose gitdir file names
// the worktree) show it is one of the root repository's, on its worker's
// branch.

// ownFiles refuses, before the swarm writes anything, a repository that
// tracks files under .swarm/ and any entry under .swarm/ the swarm would
// use that is not what it makes.
func (s *swarm) ownFiles(ctx context.Context) error {
	out, err := gitrun.Run(ctx, s.o.Root, "ls-files", "-z", "--", dir)
	if err == nil && out != "" {
		tracked := strings.Split(strings.TrimRight(out, "\x00"), "\x00")
		shown := tracked
		if len(shown) > 3 {
			shown = append(shown[:3:3], fmt.Sprintf("and %d more", len(tracked)-3))
		}
		return fmt.Errorf("--swarm: the repository tracks files under %s/ (%s), where --swarm keeps its own; remove them from it (git rm -r --cached %s) and commit, then run --swarm again",
			dir, strings.Join(shown, ", "), dir)
	}
	files := []string{swarmLock, lockFile, stateFile, callsFile, limitFile}
	folders := []string{queueDir, claimsDir}
	for id := 1; id <= maxWorkers; id++ {
		files = append(files, workerName(id)+".log")
		folders = append(folders, workerName(id))
	}
	for _, name := range files {
		if err := s.own(name, false); err != nil {
			return err
		}
	}
	for _, name := range folders {
		if err := s.own(name, true); err != nil {
			return err
		}
	}
	return nil
}

// own refuses the entry name under .swarm/ when it is not a regular file
// with one name (folder false) or a real folder (folder true).
func (s *swarm) own(name string, folder bool) error {
	p := filepath.Join(s.dir, name)
	problem := ralphdir.NotOwn(p, folder)
	if problem == "" {
		return nil
	}
	what := "a file"
	if folder {
		what = "a folder"
	}
	return fmt.Errorf("--swarm: %s %s, not %s --swarm made; remove it and run --swarm again", p, problem, what)
}

// queueFolder makes sure .swarm/.queue is the swarm's own folder (made
// when missing) before the queue works under it.
func (s *swarm) queueFolder() error {
	if err := s.own(queueDir, true); err != nil {
		return err
	}
	if err := os.Mkdir(filepath.Join(s.dir, queueDir), 0o755); err != nil && !os.IsExist(err) {
		return err
	}
	return s.own(queueDir, true)
}

// rootCommon asks git for the root repository's common git folder, as an
// absolute path with its links resolved. prepare asks it once, before any
// worker's loop runs, and checkWorktree compares every worktree with that
// answer: the root's git folder is the person's, which a worker's agent
// does not write (docs/SECURITY.md), and a baseline taken before any agent
// ran is one no agent chose.
func rootCommon(ctx context.Context, root string) (string, error) {
	p, err := git(ctx, root, "rev-parse", "--path-format=absolute", "--git-common-dir")
	if err != nil {
		return "", err
	}
	return resolved(p), nil
}

// resolved is p with its links resolved, or p cleaned when it cannot be.
func resolved(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return filepath.Clean(p)
}

// checkWorktree makes sure wt is a worktree the swarm made, before the
// queue runs a git command there that writes: a real folder (no link) at
// its place under .swarm/, whose git folder is one of the root
// repository's worktree folders (<common>/worktrees/NAME) and names wt
// back (its gitdir file), sharing the root's common folder, and checked
// out on branch (refs/heads/BRANCH). The .git file and everything under
// wt are the worker's to change, so none of this is taken from there
// alone, and none of it is remembered: the worker's agent, or the gates
// running its code, could change any of it since the last check.
func (s *swarm) checkWorktree(ctx context.Context, name, branch string) error {
	_, err := s.check(ctx, name, branch, false)
	return err
}

// checkScratch is checkWorktree for the merge queue's scratch worktree,
// which is detached, and returns its HEAD's commit (the main branch's tip
// the merge is tried on) when git gave it with the folders; "" when it is
// to be asked on its own.
func (s *swarm) checkScratch(ctx context.Context) (tip string, err error) {
	tip, err = s.check(ctx, scratchName, "", true)
	if err != nil {
		return "", fmt.Errorf("the merge queue's %w", err)
	}
	return tip, nil
}

// check is checkWorktree ("" for branch: detached), and with head the
// worktree's HEAD commit as folders gives it.
func (s *swarm) check(ctx context.Context, name, branch string, head bool) (tip string, err error) {
	wt := filepath.Join(s.dir, filepath.FromSlash(name))
	rel := filepath.ToSlash(filepath.Join(dir, name))
	notMade := func(format string, a ...any) error {
		return fmt.Errorf("its worktree %s is not the one --swarm made (%s)", rel, fmt.Sprintf(format, a...))
	}
	if problem := ralphdir.NotOwn(wt, true); problem != "" {
		return "", notMade("it %s", problem)
	}
	if problem := ralphdir.NotOwn(filepath.Join(wt, ".git"), false); problem != "" {
		return "", notMade("its .git %s", problem)
	}
	common := s.common
	gitDir, theirs, tip, answered := folders(ctx, wt, head)
	if !answered {
		if gitDir, err = git(ctx, wt, "rev-parse", "--absolute-git-dir"); err != nil {
			return "", notMade("git cannot tell its git folder: %v", err)
		}
	}
	gitDir = resolved(gitDir)
	if filepath.Dir(gitDir) != filepath.Join(common, "worktrees") {
		return "", notMade("its git folder is %s, not one of %s", gitDir, filepath.Join(common, "worktrees"))
	}
	if !answered {
		theirs, err = git(ctx, wt, "rev-parse", "--path-format=absolute", "--git-common-dir")
	}
	if err != nil || resolved(theirs) != common {
		return "", notMade("its common git folder is %s, not %s", theirs, common)
	}
	back, err := ralphdir.ReadFileCapped(filepath.Join(gitDir, "gitdir"), 4096)
	if err != nil || resolved(strings.TrimSpace(string(back))) != resolved(filepath.Join(wt, ".git")) {
		return "", notMade("its git folder %s belongs to another worktree", gitDir)
	}
	if branch == "" {
		return tip, nil
	}
	ref, _ := git(ctx, wt, "symbolic-ref", "-q", "HEAD")
	if ref != "refs/heads/"+branch {
		if ref == "" {
			ref = "a detached HEAD"
		}
		return "", fmt.Errorf("its worktree %s is on %s, not on its branch %s", rel, ref, branch)
	}
	return tip, nil
}

// folders asks git in wt, in one process, where its git folder and its
// common git folder are (absolute, links not resolved) and, with head,
// HEAD's commit: `git rev-parse` answers each on a line of its own. ok is
// false when git did not answer all of them (no repository there, an
// unborn HEAD) or the lines cannot be told apart (a folder with a newline
// in its name): check then asks each on its own, as it always did, so
// that what passes and the words of a refusal never depend on this
// shortcut.
func folders(ctx context.Context, wt string, head bool) (gitDir, common, tip string, ok bool) {
	args := []string{"rev-parse", "--path-format=absolute", "--absolute-git-dir", "--git-common-dir"}
	want := 2
	if head {
		args, want = append(args, "HEAD"), 3
	}
	out, err := gitrun.Run(ctx, wt, args...)
	ls := strings.Split(out, "\n")
	if err != nil || len(ls) != want || slices.Contains(ls, "") {
		return "", "", "", false
	}
	if head {
		tip = ls[2]
	}
	return ls[0], ls[1], tip, true
}
