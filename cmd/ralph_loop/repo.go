package main

import (
	"context"
	"errors"
	"os"
	"sync/atomic"

	"github.com/ralphloop/ralph_loop/internal/config"
	"github.com/ralphloop/ralph_loop/internal/engine"
	"github.com/ralphloop/ralph_loop/internal/gitrun"
	"github.com/ralphloop/ralph_loop/internal/ralphdir"
)

// gitRepo is the engine's Repo in production: the project's git, run by
// gitrun (no program the repository's configuration names). usable is
// set once Usable has said yes (see runRepo).
type gitRepo struct {
	g      gitrun.Repo
	usable *atomic.Bool
}

var _ engine.Repo = gitRepo{}

// projectRepo is the repository of projectDir as the loop's engine asks
// about it, git running with env (nil: this process's). With ralphDir set,
// the loop's own files under it are left out of every change; warn, when
// set, is told once of each git command that would never have ended.
func projectRepo(projectDir, ralphDir string, env []string, warn func(error)) engine.Repo {
	return gitRepo{g: gitrun.Open(projectDir, ralphDir, env, warn)}
}

// runRepo is the repository of a run: the one the precheck asks before
// anything is written, then the engine's. Its first yes to Usable stands
// for the engine's start-up check a moment later (nothing but .ralph/ has
// been written since), and what git said then (its top folder) is not
// asked again. A git command that would never end is said through the
// function setWarn gives, once the run's log is wired.
func runRepo(projectDir, ralphDir string) (repo engine.Repo, setWarn func(func(error))) {
	var warn atomic.Pointer[func(error)]
	g := gitrun.Open(projectDir, ralphDir, os.Environ(), func(err error) {
		if f := warn.Load(); f != nil {
			(*f)(err)
		}
	})
	return gitRepo{g: g, usable: new(atomic.Bool)}, func(f func(error)) { warn.Store(&f) }
}

// Usable: git is installed and will look at the project, which has a
// commit. git's refusal of a repository another user owns is said in
// git's words, as is a file git would hang on (a *gitrun.StuckError).
func (r gitRepo) Usable(ctx context.Context) error {
	if r.usable != nil && r.usable.Load() {
		return nil
	}
	err := r.usableNow(ctx)
	if err == nil && r.usable != nil {
		r.usable.Store(true)
	}
	return err
}

func (r gitRepo) usableNow(ctx context.Context) error {
	if !r.g.Available() {
		return engine.ErrNoGit
	}
	if err := r.g.GitDir(ctx); err != nil {
		if line, refused := gitrun.Refusal(err.Error()); refused {
			return errors.New(line)
		}
		if gitrun.Stuck(err) { // a named pipe where git reads a file, say
			return err
		}
		return engine.ErrNoRepository
	}
	if r.g.Head(ctx) == "" {
		return engine.ErrNoCommit
	}
	return nil
}

func (r gitRepo) InRepository(ctx context.Context) bool   { return r.g.IsRepo(ctx) }
func (r gitRepo) Commit(ctx context.Context) string       { return r.g.Head(ctx) }
func (r gitRepo) Uncommitted(ctx context.Context) string  { return r.g.Porcelain(ctx) }
func (r gitRepo) Mark(ctx context.Context) (string, bool) { return r.g.Tree(ctx) }

func (r gitRepo) ChangedSince(ctx context.Context, start string) (int, string, string, bool) {
	return r.g.Changes(ctx, start)
}

func (r gitRepo) WorkCommitted(ctx context.Context, from, to string) bool {
	return r.g.CommittedBeyondOwned(ctx, from, to)
}

func (r gitRepo) DiffSummary(ctx context.Context, rng string) string { return r.g.DiffStat(ctx, rng) }

func (r gitRepo) LastCommit(ctx context.Context) (id, subject string, ok bool) {
	return r.g.LastCommit(ctx)
}

func (r gitRepo) CommitsSince(ctx context.Context, since string) []string {
	return r.g.CommitsSince(ctx, since)
}

// projectReader is the engine's reader of the project's files (the prompt
// file s names, the plan, the review prompt, a call's logs) under dir.
func projectReader(s config.Config, dir *ralphdir.Dir) ralphdir.Project {
	return ralphdir.Project{Dir: dir, ProjectDir: s.ProjectDir, PromptFile: s.PromptFile, PromptFromRepo: s.PromptFromRepo}
}
