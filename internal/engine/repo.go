package engine

import "context"

// repo is the project's repository as the engine asks about it:
// gitrun.Repo in production, which runs git with nothing the repository's
// configuration names and leaves the loop's own files out of every change.
type repo interface {
	// Available reports whether git is installed.
	Available() bool
	// GitDir is nil in a repository git will look at, else git's message.
	GitDir(ctx context.Context) error
	IsRepo(ctx context.Context) bool
	// Head is HEAD's commit id, "" without one.
	Head(ctx context.Context) string
	// Porcelain is `git status --porcelain`, "" for a clean tree.
	Porcelain(ctx context.Context) string
	// CommittedBeyondOwned: the commits from..to change a file that is
	// not the loop's own.
	CommittedBeyondOwned(ctx context.Context, from, to string) bool
	// Changes counts the files changed since the commit start (committed,
	// unstaged and staged) with their `git diff --numstat` text.
	Changes(ctx context.Context, start string) (files int, numstat string)
	// DiffStat is `git diff --stat [rng]`.
	DiffStat(ctx context.Context, rng string) string
	// LastCommit is HEAD's short id and subject.
	LastCommit(ctx context.Context) (id, subject string, ok bool)
}
