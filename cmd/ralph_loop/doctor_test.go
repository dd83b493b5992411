package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ralphloop/ralph_loop/internal/config"
)

func TestDoctorLoginCheck(t *testing.T) {
	home := t.TempDir()
	env := func(vars map[string]string, goos string) doctorEnv {
		return doctorEnv{home: home, goos: goos, lookupEnv: func(k string) (string, bool) { v, ok := vars[k]; return v, ok }}
	}
	cases := []struct {
		name, driver, goos string
		vars               map[string]string
		file               string // created under home
		mark, want         string
	}{
		{"claude file", "claude-code", "linux", nil, ".claude/.credentials.json", "✓", "Agent credentials found"},
		{"claude config dir", "claude-code", "linux", map[string]string{"CLAUDE_CONFIG_DIR": filepath.Join(home, "cc")}, "cc/.credentials.json", "✓", "cc/.credentials.json"},
		{"claude none", "claude-code", "linux", nil, "", "–", "run 'claude' (then /login)"},
		{"claude macOS keychain", "claude-code", "darwin", nil, "", "–", "macOS keychain"},
		{"claude token", "claude-code", "linux", map[string]string{"CLAUDE_CODE_OAUTH_TOKEN": "x"}, "", "✓", "CLAUDE_CODE_OAUTH_TOKEN is set"},
		{"codex file", "codex", "linux", nil, ".codex/auth.json", "✓", "auth.json"},
		{"codex key", "codex", "linux", map[string]string{"OPENAI_API_KEY": "x"}, "", "✓", "OPENAI_API_KEY is set"},
		{"codex none", "codex", "linux", nil, "", "–", "'codex login'"},
		{"cursor", "cursor", "linux", nil, "", "–", "cannot tell without a network call; skipped"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			os.RemoveAll(home)
			if c.file != "" {
				p := filepath.Join(home, c.file)
				os.MkdirAll(filepath.Dir(p), 0o755)
				if err := os.WriteFile(p, []byte("{}"), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			got := loginCheck(c.driver, "Agent", env(c.vars, c.goos))
			if got.mark != c.mark || !strings.Contains(got.text, c.want) {
				t.Fatalf("got %s %s, want %s …%s…", got.mark, got.text, c.mark, c.want)
			}
		})
	}
}

func TestDoctorTmuxCheck(t *testing.T) {
	missing := doctorEnv{lookPath: func(string) (string, error) { return "", errors.New("not found") }}
	if c := tmuxCheck(missing); c.mark != "✗" || !strings.Contains(c.text, "install tmux") {
		t.Fatalf("no tmux: got %s %s", c.mark, c.text)
	}
	found := doctorEnv{lookPath: func(string) (string, error) { return "/usr/bin/tmux", nil }}
	if c := tmuxCheck(found); c.mark != "✓" || !strings.Contains(c.text, "/usr/bin/tmux") {
		t.Fatalf("tmux: got %s %s", c.mark, c.text)
	}
}

func TestDoctorConfigCheck(t *testing.T) {
	cfg := &config.Config{RCFile: ".ralph/.ralphrc"}
	c := configCheck(cfg, []config.Warning{{Msg: "IDLE_BACKOFF has no effect without IDLE_DELAY"}})
	if c.mark != "⚠" || !strings.Contains(c.text, "with warnings (.ralph/.ralphrc): IDLE_BACKOFF") {
		t.Fatalf("a plain warning: got %s %s", c.mark, c.text)
	}
	c = configCheck(cfg, []config.Warning{{Msg: "Invalid X: 'y' (env X); expected z; using the default", Invalid: true}})
	if c.mark != "✗" || c.text != "configuration: Invalid X: 'y' (env X); expected z" {
		t.Fatalf("an invalid value: got %s %s", c.mark, c.text)
	}
}

func TestDoctorHumanMB(t *testing.T) {
	for mb, want := range map[uint64]string{499: "499 MB", 10239: "10239 MB", 10240: "10 GB", 80000: "78 GB"} {
		if got := humanMB(mb); got != want {
			t.Errorf("humanMB(%d) = %q, want %q", mb, got, want)
		}
	}
}
