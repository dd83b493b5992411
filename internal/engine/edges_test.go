package engine

import (
	"context"
	"errors"

	"github.com/ralphloop/ralph_loop/internal/events"
	"go/ast"
	"go/token"
	"strconv"
	"strings"
	"testing"
)

// The engine asks a driver what it needs (drivers.Traits, Binary,
// Supports*); it never compares a driver's name with a CLI's. A name in
// the engine is a special case some other CLI silently misses.
func TestEngineNamesNoDriver(t *testing.T) {
	t.Parallel()
	names := []string{"claude-code", "codex", "cursor", "copilot", "opencode", "command"}
	eachEngineNode(t, func(fset *token.FileSet, n ast.Node) {
		lit, ok := n.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return
		}
		s, err := strconv.Unquote(lit.Value)
		if err != nil {
			return
		}
		for _, name := range names {
			if strings.EqualFold(s, name) {
				t.Errorf("%s: the driver name %q: ask the driver (drivers.Traits) instead", fset.Position(lit.Pos()), s)
			}
		}
	})
}

// fakeRepo answers the engine's git questions without git.
type fakeRepo struct {
	noGit  bool
	gitDir error
	head   string
}

func (f fakeRepo) Available() bool                         { return !f.noGit }
func (f fakeRepo) GitDir(context.Context) error            { return f.gitDir }
func (f fakeRepo) IsRepo(context.Context) bool             { return f.gitDir == nil }
func (f fakeRepo) Head(context.Context) string             { return f.head }
func (f fakeRepo) Porcelain(context.Context) string        { return "" }
func (f fakeRepo) DiffStat(context.Context, string) string { return "" }
func (f fakeRepo) CommittedBeyondOwned(_ context.Context, from, to string) bool {
	return from != to
}
func (f fakeRepo) Changes(context.Context, string) (int, string) { return 0, "" }
func (f fakeRepo) LastCommit(context.Context) (string, string, bool) {
	return f.head, "subject", f.head != ""
}
func (f fakeRepo) Tree(context.Context) (string, bool)           { return "", f.gitDir == nil }
func (f fakeRepo) CommitsSince(context.Context, string) []string { return nil }

// The start-up check of the repository decides from what the repository
// edge answers: no git, git's refusal of another user's repository in
// git's words, no repository, no commit.
func TestGitProblemFromTheRepoEdge(t *testing.T) {
	t.Parallel()
	refusal := errors.New("fatal: detected dubious ownership in repository at '/p'\nTo add an exception for this directory, call:\n\n\tgit config --global --add safe.directory /p")
	cases := []struct {
		name  string
		repo  fakeRepo
		check events.StartupCheck
		err   string
		ok    bool
	}{
		{"no git", fakeRepo{noGit: true}, events.GitMissing, "", false},
		{"refused", fakeRepo{gitDir: refusal}, 0, "git refuses to work in this repository: detected dubious ownership", false},
		{"no repository", fakeRepo{gitDir: errors.New("fatal: not a git repository")}, events.NoGitRepo, "", false},
		{"no commit", fakeRepo{}, events.NoCommits, "", false},
		{"fine", fakeRepo{head: "0123456789012345678901234567890123456789"}, 0, "", true},
	}
	for _, tc := range cases {
		f, ok := gitProblem(tc.repo, "/p")
		if ok != tc.ok || f.Check != tc.check {
			t.Errorf("%s: gitProblem = %+v, %v; want check %q, ok %v", tc.name, f, ok, tc.check, tc.ok)
		}
		if tc.err != "" && (f.Err == nil || !strings.HasPrefix(f.Err.Error(), tc.err)) {
			t.Errorf("%s: error %v, want it to start %q", tc.name, f.Err, tc.err)
		}
		if tc.check == events.NoGitRepo && f.Path != "/p" {
			t.Errorf("%s: path %q, want /p", tc.name, f.Path)
		}
	}
}
