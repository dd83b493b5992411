package engine

import (
	"context"
	"errors"

	"github.com/ralphloop/ralph_loop/internal/events"
)

// Repo is the project's repository as the engine asks about it: where the
// project is (its commit), what changed since, and whether it may be
// asked at all. The loop's own files under .ralph/ (ralphdir.LoopOwned)
// are left out of every change it reports. In production it is git, run
// by package gitrun (cmd/ralph_loop wires it); an answer git could not
// give reads "no change".
type Repo interface {
	// Usable is nil when the project is a repository with a commit that
	// may be asked; else ErrNoGit, ErrNoRepository, ErrNoCommit, or an
	// error whose text is said as it is (git's own refusal, a file git
	// would hang on).
	Usable(ctx context.Context) error
	// InRepository reports whether the project is a repository that may
	// be asked.
	InRepository(ctx context.Context) bool
	// Commit is the commit the project is at, "" without one.
	Commit(ctx context.Context) string
	// Uncommitted lists the files changed beyond the commit, one line
	// each; "" for none.
	Uncommitted(ctx context.Context) string
	// Mark is a mark of the working tree's content beyond the commit:
	// equal marks, the same content (false: it could not be taken).
	Mark(ctx context.Context) (mark string, ok bool)
	// ChangedSince counts the files changed since the commit start
	// (committed, unstaged and staged; untracked files not counted), with
	// their diff summary, one "added<TAB>deleted<TAB>path" line each, and
	// the tree's mark as Mark gives it now (one look at the tree answers
	// both).
	ChangedSince(ctx context.Context, start string) (files int, numstat, mark string, markOK bool)
	// WorkCommitted reports whether the commits from..to change a file
	// that is not the loop's own.
	WorkCommitted(ctx context.Context, from, to string) bool
	// DiffSummary is the diffstat of the working tree (rng "") or of a
	// range ("A..B", or a commit against the working tree).
	DiffSummary(ctx context.Context, rng string) string
	// LastCommit is the latest commit's short id and subject.
	LastCommit(ctx context.Context) (id, subject string, ok bool)
	// CommitsSince lists the commits since..the current one, oldest
	// first.
	CommitsSince(ctx context.Context, since string) []string
}

// The start-up's answers of Repo.Usable.
var (
	ErrNoGit        = errors.New("git is not installed")
	ErrNoRepository = errors.New("not a git repository")
	ErrNoCommit     = errors.New("the repository has no commit")
)

// repoProblem is the start-up check of the repository: the failed check
// in the words the person reads, or ok. git's refusal to look at a
// repository another user owns, and a repository git would hang on, are
// said in their own words.
func repoProblem(r Repo, dir string) (events.StartupFailed, bool) {
	err := r.Usable(context.Background())
	switch {
	case err == nil:
		return events.StartupFailed{}, true
	case errors.Is(err, ErrNoGit):
		return events.StartupFailed{Check: events.GitMissing}, false
	case errors.Is(err, ErrNoRepository):
		return events.StartupFailed{Check: events.NoGitRepo, Path: dir}, false
	case errors.Is(err, ErrNoCommit):
		return events.StartupFailed{Check: events.NoCommits}, false
	}
	return events.StartupFailed{Err: err}, false
}
