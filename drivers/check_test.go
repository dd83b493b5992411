package drivers

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestParseAndCompareVersion(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"2.10.0", "2.9.0", 1},
		{"2.1.330", "2.2.0", -1}, // the bash loop's major*10000+minor*100+patch gets this wrong
		{"2.1.330 (Claude Code)", "2.0.76", 1},
		{"codex-cli 0.169.0", "0.1.0", 1},
		{"GitHub Copilot CLI 1.0.102.\nRun 'copilot update' to check for updates.", "0.0.418", 1},
		{"1.18.33", "1.18.33", 0},
		{"v0.0.9", "0.0.10", -1},
		{"2025.09.18-7ae6800", "0.1.0", 1},
	}
	for _, tc := range tests {
		a, okA := parseVersion(tc.a)
		b, okB := parseVersion(tc.b)
		if !okA || !okB {
			t.Errorf("ParseVersion(%q)=%v, ParseVersion(%q)=%v", tc.a, okA, tc.b, okB)
			continue
		}
		if got := a.compare(b); got != tc.want {
			t.Errorf("%s vs %s = %d, want %d", a, b, got, tc.want)
		}
	}
	for _, bad := range []string{"", "unknown", "2.1", "99999999999999999999.0.0"} {
		if v, ok := parseVersion(bad); ok {
			t.Errorf("ParseVersion(%q) = %v, want no version", bad, v)
		}
	}
	if v, _ := parseVersion("2.1.330 (Claude Code)"); v.String() != "2.1.330" {
		t.Errorf("String() = %q", v)
	}
}

func TestCheck(t *testing.T) {
	claude, _ := Get("claude-code")
	cursor, _ := Get("cursor")
	command, _ := Get("command")
	version := func(out string, err error) func(context.Context, string) (string, error) {
		return func(context.Context, string) (string, error) { return out, err }
	}
	tests := []struct {
		name        string
		d           Driver
		o           CheckOptions
		wantPath    string
		wantVersion string
		wantWarn    string // substring; "" means no warning
		wantErr     string
	}{
		{"claude ok", claude, CheckOptions{LookPath: fakeLookPath("claude"), Version: version("2.1.330 (Claude Code)\n", nil)},
			"/opt/bin/claude", "2.1.330", "", ""},
		{"claude missing", claude, CheckOptions{LookPath: fakeLookPath()}, "", "", "",
			`Claude Code CLI "claude" not found on PATH: it comes from @anthropic-ai/claude-code, install it with: npm install -g @anthropic-ai/claude-code`},
		{"claude too old", claude, CheckOptions{LookPath: fakeLookPath("claude"), Version: version("2.0.9 (Claude Code)", nil)},
			"/opt/bin/claude", "2.0.9", "Claude Code 2.0.9 is older than the minimum supported version 2.0.76 (update with: npm install -g @anthropic-ai/claude-code)", ""},
		{"CLAUDE_MIN_VERSION overrides", claude, CheckOptions{LookPath: fakeLookPath("claude"), MinVersion: "2.10.0", Version: version("2.9.5", nil)},
			"/opt/bin/claude", "2.9.5", "older than the minimum supported version 2.10.0", ""},
		{"newer minor with big patch is not old", claude, CheckOptions{LookPath: fakeLookPath("claude"), MinVersion: "2.1.99", Version: version("2.1.330", nil)},
			"/opt/bin/claude", "2.1.330", "", ""},
		{"unparseable version is compatible", claude, CheckOptions{LookPath: fakeLookPath("claude"), Version: version("dev build", nil)},
			"/opt/bin/claude", "", "", ""},
		{"version command fails", claude, CheckOptions{LookPath: fakeLookPath("claude"), Version: version("", errors.New("exit status 1"))},
			"/opt/bin/claude", "", "could not read the Claude Code version", ""},
		{"no version func", claude, CheckOptions{LookPath: fakeLookPath("claude")}, "/opt/bin/claude", "", "", ""},
		{"cursor under its new name", cursor, CheckOptions{LookPath: fakeLookPath("agent")}, "/opt/bin/agent", "", "", ""},
		{"cursor missing", cursor, CheckOptions{LookPath: fakeLookPath()}, "", "", "", "curl https://cursor.com/install"},
		{"command needs a binary", command, CheckOptions{LookPath: fakeLookPath("x")}, "", "", "", "AGENT_COMMAND is empty"},
		{"command binary found", command, CheckOptions{Binary: "my-agent", LookPath: fakeLookPath("my-agent"), Version: version("9.9.9", nil)},
			"/opt/bin/my-agent", "9.9.9", "", ""},
		{"command binary missing", command, CheckOptions{Binary: "my-agent", LookPath: fakeLookPath()}, "", "", "",
			`the agent command "my-agent" (AGENT_COMMAND) was not found on PATH; install it, or set AGENT_COMMAND to its right name or full path`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Check(context.Background(), tc.d, tc.o)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				if strings.Contains(err.Error(), "\n") {
					t.Errorf("error is not one line: %q", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if res.Path != tc.wantPath || res.Version != tc.wantVersion {
				t.Errorf("got %+v, want path %q version %q", res, tc.wantPath, tc.wantVersion)
			}
			if (tc.wantWarn == "") != (res.Warning == "") || !strings.Contains(res.Warning, tc.wantWarn) {
				t.Errorf("warning %q, want %q", res.Warning, tc.wantWarn)
			}
		})
	}
}
