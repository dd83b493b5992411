package main

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestForwardEnv(t *testing.T) {
	got := forwardEnv([]string{"PATH=/bin", "HOME=/root", "PLATFORM_DRIVER=codex", "PLATFORM_DRIVERX=no",
		"CB_NO_PROGRESS_THRESHOLD=5", "ANTHROPIC_API_KEY=k", "TERM=xterm"})
	want := []string{"-e", "PATH=/bin", "-e", "PLATFORM_DRIVER=codex", "-e", "CB_NO_PROGRESS_THRESHOLD=5", "-e", "ANTHROPIC_API_KEY=k"}
	if !slices.Equal(got, want) {
		t.Fatalf("forwardEnv = %q, want %q", got, want)
	}
}

func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{
		"/usr/bin/ralph_loop": "/usr/bin/ralph_loop",
		"--calls":             "--calls",
		"a b":                 "'a b'",
		"it's":                `'it'\''s'`,
		"Bash(git *)":         "'Bash(git *)'",
		"":                    "''",
	} {
		if got := shellQuote(in); got != want {
			t.Errorf("shellQuote(%q) = %s, want %s", in, got, want)
		}
	}
}

// Without tmux, Windows gets one line that points to --live; other systems
// keep the bash loop's install hints.
func TestNoTmux(t *testing.T) {
	var ee *exitError
	if !errors.As(noTmux("windows"), &ee) || ee.code != 1 || len(ee.lines) != 1 || !strings.Contains(ee.lines[0], "--live") {
		t.Errorf("noTmux(windows) = %#v, want one line naming --live, exit 1", ee)
	}
	if !errors.As(noTmux("linux"), &ee) || ee.code != 1 || ee.lines[0] != "tmux is not installed. Please install tmux or run without --monitor flag." {
		t.Errorf("noTmux(linux) = %#v, want the bash loop's lines", ee)
	}
}
