package main

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/ralphloop/ralph_loop/internal/engine"
	"github.com/ralphloop/ralph_loop/internal/events"
)

// fakeGit is gitrun.Repo's answers without git.
type fakeGit struct {
	noGit  bool
	gitDir error
	head   string
}

func (f fakeGit) Available() bool                         { return !f.noGit }
func (f fakeGit) GitDir(context.Context) error            { return f.gitDir }
func (f fakeGit) IsRepo(context.Context) bool             { return f.gitDir == nil }
func (f fakeGit) Head(context.Context) string             { return f.head }
func (f fakeGit) Porcelain(context.Context) string        { return "" }
func (f fakeGit) DiffStat(context.Context, string) string { return "" }
func (f fakeGit) CommittedBeyondOwned(_ context.Context, from, to string) bool {
	return from != to
}
func (f fakeGit) Changes(context.Context, string) (int, string, string, bool) {
	return 0, "", "", false
}
func (f fakeGit) LastCommit(context.Context) (string, string, bool) {
	return f.head, "subject", f.head != ""
}
func (f fakeGit) Tree(context.Context) (string, bool)           { return "", f.gitDir == nil }
func (f fakeGit) CommitsSince(context.Context, string) []string { return nil }

// The start-up check of the repository (engine.CheckGit) decides from what
// git answers (gitRepo.Usable): no git, git's refusal of another user's
// repository in git's words, no repository, no commit.
func TestCheckGitFromGitrunsAnswers(t *testing.T) {
	t.Parallel()
	refusal := errors.New("fatal: detected dubious ownership in repository at '/p'\nTo add an exception for this directory, call:\n\n\tgit config --global --add safe.directory /p")
	cases := []struct {
		name  string
		repo  fakeGit
		check events.StartupCheck
		err   string
		ok    bool
	}{
		{"no git", fakeGit{noGit: true}, events.GitMissing, "", false},
		{"refused", fakeGit{gitDir: refusal}, 0, "git refuses to work in this repository: detected dubious ownership", false},
		{"no repository", fakeGit{gitDir: errors.New("fatal: not a git repository")}, events.NoGitRepo, "", false},
		{"no commit", fakeGit{}, events.NoCommits, "", false},
		{"fine", fakeGit{head: "0123456789012345678901234567890123456789"}, 0, "", true},
	}
	for _, tc := range cases {
		f, ok := engine.CheckGit(gitRepo{g: tc.repo}, "/p")
		if ok != tc.ok || f.Check != tc.check {
			t.Errorf("%s: CheckGit = %+v, %v; want check %q, ok %v", tc.name, f, ok, tc.check, tc.ok)
		}
		if tc.err != "" && (f.Err == nil || !strings.HasPrefix(f.Err.Error(), tc.err)) {
			t.Errorf("%s: error %v, want it to start %q", tc.name, f.Err, tc.err)
		}
		if tc.check == events.NoGitRepo && f.Path != "/p" {
			t.Errorf("%s: path %q, want /p", tc.name, f.Path)
		}
	}
}
