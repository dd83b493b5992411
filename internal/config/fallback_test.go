package config

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestFallbackDriver(t *testing.T) {
	for _, tc := range []struct {
		name   string
		s      setup
		want   string
		argv   []string
		noWarn bool
	}{
		{"off by default", setup{}, "", nil, true},
		{"flag", setup{args: []string{"--fallback-driver", "codex"}}, "codex", nil, true},
		{"environment", setup{env: map[string]string{"FALLBACK_DRIVER": "opencode"}}, "opencode", nil, true},
		{"ralphrc", setup{rc: rc("FALLBACK_DRIVER=cursor")}, "cursor", nil, true},
		{"claude-code behind codex", setup{env: map[string]string{"PLATFORM_DRIVER": "codex", "FALLBACK_DRIVER": "claude-code"}}, "claude-code", nil, true},
		{"command fallback takes AGENT_COMMAND", setup{env: map[string]string{"FALLBACK_DRIVER": "command", "AGENT_COMMAND": "my-agent --yes"}}, "command", []string{"my-agent", "--yes"}, true},
		{"blank is off", setup{env: map[string]string{"FALLBACK_DRIVER": " "}}, "", nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, warns, err := tc.s.load(t)
			if err != nil {
				t.Fatal(err)
			}
			if c.FallbackDriver != tc.want {
				t.Errorf("FallbackDriver = %q, want %q", c.FallbackDriver, tc.want)
			}
			if !slices.Equal(c.AgentArgv, tc.argv) {
				t.Errorf("AgentArgv = %q, want %q", c.AgentArgv, tc.argv)
			}
			if tc.noWarn && len(warns) > 0 {
				t.Errorf("warnings: %+v", warns)
			}
		})
	}
}

func TestFallbackDriverRefused(t *testing.T) {
	for _, tc := range []struct {
		name string
		s    setup
		key  string
		msg  string
	}{
		{"unknown", setup{env: map[string]string{"FALLBACK_DRIVER": "gemini"}}, "FALLBACK_DRIVER",
			"Invalid FALLBACK_DRIVER: 'gemini' (env FALLBACK_DRIVER); available drivers: claude-code codex cursor copilot opencode command"},
		{"unknown flag value", setup{args: []string{"--fallback-driver", "nope"}}, "--fallback-driver", "Invalid --fallback-driver: 'nope'; available drivers:"},
		{"the main driver itself", setup{env: map[string]string{"FALLBACK_DRIVER": "claude-code"}}, "FALLBACK_DRIVER",
			"FALLBACK_DRIVER=claude-code (env FALLBACK_DRIVER) is PLATFORM_DRIVER itself; name another driver to fall back to, or leave FALLBACK_DRIVER empty"},
		{"the main driver itself, as a flag", setup{args: []string{"--driver", "codex", "--fallback-driver", "codex"}}, "--fallback-driver",
			"--fallback-driver codex is PLATFORM_DRIVER itself; name another driver"},
		{"command without AGENT_COMMAND", setup{rc: rc("FALLBACK_DRIVER=command")}, "AGENT_COMMAND",
			"FALLBACK_DRIVER=command (.ralph/.ralphrc:1) needs AGENT_COMMAND"},
		{"claude-code fallback checks the tools", setup{env: map[string]string{"PLATFORM_DRIVER": "codex", "FALLBACK_DRIVER": "claude-code", "ALLOWED_TOOLS": "Read,Hack"}}, "ALLOWED_TOOLS",
			"Invalid tool in ALLOWED_TOOLS: 'Hack'"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := tc.s.load(t)
			var ue *UsageError
			if !errors.As(err, &ue) {
				t.Fatalf("error %v, want a usage error", err)
			}
			if ue.Key != tc.key || !strings.Contains(ue.Msg, tc.msg) || strings.Contains(ue.Msg, "\n") {
				t.Errorf("usage error %q %q, want key %q and %q on one line", ue.Key, ue.Msg, tc.key, tc.msg)
			}
		})
	}
}

// A maintenance command reads the configuration leniently: a fallback it
// cannot use is dropped with a warning.
func TestFallbackDriverLenient(t *testing.T) {
	c, warns, err := setup{args: []string{"--reset-session"}, env: map[string]string{"FALLBACK_DRIVER": "claude-code"}}.load(t)
	if err != nil {
		t.Fatal(err)
	}
	if c.FallbackDriver != "" || len(warns) != 1 || !strings.Contains(warns[0].Msg, "is PLATFORM_DRIVER itself") {
		t.Errorf("FallbackDriver %q, warnings %+v", c.FallbackDriver, warns)
	}
}
