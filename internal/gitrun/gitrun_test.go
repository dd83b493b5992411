package gitrun

import (
	"slices"
	"strings"
	"testing"
)

// TestRefusal: git 2.39's own text for a repository another user owns
// becomes one line with the safe.directory command; other errors do not.
func TestRefusal(t *testing.T) {
	msg := "fatal: detected dubious ownership in repository at '/srv/proj'\n" +
		"To add an exception for this directory, call:\n\n" +
		"\tgit config --global --add safe.directory /srv/proj"
	got, ok := Refusal(msg)
	want := "git refuses to work in this repository: detected dubious ownership in repository at '/srv/proj'; " +
		"To add an exception for this directory, call: git config --global --add safe.directory /srv/proj"
	if !ok || got != want {
		t.Errorf("Refusal = %q, %v\nwant %q", got, ok, want)
	}
	if _, ok := Refusal("fatal: not a git repository (or any of the parent directories): .git"); ok {
		t.Error("a missing repository taken for a refusal")
	}
}

// TestParseFilters: only the filters of the repository's own scopes are
// named, each once, whatever characters the name holds.
func TestParseFilters(t *testing.T) {
	out := "local\x00filter.evil.clean\nsh x\x00local\x00filter.evil.smudge\nsh y\x00" +
		"global\x00filter.lfs.clean\ngit-lfs clean -- %f\x00worktree\x00filter.a=b.c.process\nz\x00" +
		"command\x00filter.mine.clean\ncat\x00system\x00filter.sys.clean\ncat\x00"
	got := parseFilters([]byte(out))
	if want := []string{"evil", "a=b.c"}; !slices.Equal(got, want) {
		t.Errorf("parseFilters = %q, want %q", got, want)
	}
}

// TestFilterEnv: the overrides follow the person's own GIT_CONFIG_COUNT
// entries and keep each name whole.
func TestFilterEnv(t *testing.T) {
	env := filterEnv([]string{"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=user.name", "GIT_CONFIG_VALUE_0=me"}, []string{"a=b"})
	joined := strings.Join(env, "\n")
	for _, want := range []string{"GIT_CONFIG_KEY_1=filter.a=b.clean", "GIT_CONFIG_VALUE_1=", "GIT_CONFIG_KEY_4=filter.a=b.required", "GIT_CONFIG_VALUE_4=false", "GIT_PAGER=cat"} {
		if !slices.Contains(env, want) {
			t.Errorf("filterEnv lacks %q:\n%s", want, joined)
		}
	}
	if env[len(env)-1] != "GIT_CONFIG_COUNT=5" {
		t.Errorf("filterEnv ends with %q, want GIT_CONFIG_COUNT=5", env[len(env)-1])
	}
}
