package swarm

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
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
	folders := []string{queueDir}
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

// commonDir is the root repository's common git folder, as an absolute
// path with its links resolved.
func (s *swarm) commonDir(ctx context.Context) (string, error) {
	p, err := git(ctx, s.o.Root, "rev-parse", "--path-format=absolute", "--git-common-dir")
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
// out on branch (refs/heads/BRANCH; "" for the scratch worktree, which is
// detached). The .git file and everything under wt are the worker's to
// change, so none of this is taken from there alone.
func (s *swarm) checkWorktree(ctx context.Context, name, branch string) error {
	wt := filepath.Join(s.dir, filepath.FromSlash(name))
	rel := filepath.ToSlash(filepath.Join(dir, name))
	notMade := func(format string, a ...any) error {
		return fmt.Errorf("its worktree %s is not the one --swarm made (%s)", rel, fmt.Sprintf(format, a...))
	}
	if problem := ralphdir.NotOwn(wt, true); problem != "" {
		return notMade("it %s", problem)
	}
	if problem := ralphdir.NotOwn(filepath.Join(wt, ".git"), false); problem != "" {
		return notMade("its .git %s", problem)
	}
	common, err := s.commonDir(ctx)
	if err != nil {
		return err
	}
	gitDir, err := git(ctx, wt, "rev-parse", "--absolute-git-dir")
	if err != nil {
		return notMade("git cannot tell its git folder: %v", err)
	}
	gitDir = resolved(gitDir)
	if filepath.Dir(gitDir) != filepath.Join(common, "worktrees") {
		return notMade("its git folder is %s, not one of %s", gitDir, filepath.Join(common, "worktrees"))
	}
	if theirs, err := git(ctx, wt, "rev-parse", "--path-format=absolute", "--git-common-dir"); err != nil || resolved(theirs) != common {
		return notMade("its common git folder is %s, not %s", theirs, common)
	}
	back, err := ralphdir.ReadFileCapped(filepath.Join(gitDir, "gitdir"), 4096)
	if err != nil || resolved(strings.TrimSpace(string(back))) != resolved(filepath.Join(wt, ".git")) {
		return notMade("its git folder %s belongs to another worktree", gitDir)
	}
	if branch == "" {
		return nil
	}
	head, _ := git(ctx, wt, "symbolic-ref", "-q", "HEAD")
	if head != "refs/heads/"+branch {
		if head == "" {
			head = "a detached HEAD"
		}
		return fmt.Errorf("its worktree %s is on %s, not on its branch %s", rel, head, branch)
	}
	return nil
}
