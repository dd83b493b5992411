package drivers

import (
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestNamesAndGet(t *testing.T) {
	want := []string{"claude-code", "codex", "cursor", "copilot", "opencode", "command"}
	if diff := cmp.Diff(want, Names()); diff != "" {
		t.Fatalf("Names (-want +got):\n%s", diff)
	}
	for _, n := range want {
		d, err := Get(n)
		if err != nil || d.Name() != n {
			t.Errorf("Get(%q) = %v, %v", n, d, err)
		}
	}
	for _, bad := range []string{"", "claude", "../claude-code", "drivers/codex", `..\x`, "cursor-agent-wrapper"} {
		_, err := Get(bad)
		if err == nil {
			t.Errorf("Get(%q): no error", bad)
			continue
		}
		if !strings.Contains(err.Error(), "claude-code, codex, cursor, copilot, opencode, command") {
			t.Errorf("Get(%q) error does not list the drivers: %v", bad, err)
		}
	}
}

func TestCapabilities(t *testing.T) {
	tests := []struct {
		name, display, binary      string
		allowlist, sessions, live  bool
		minVersion, installPattern string
		tools                      int
	}{
		{"claude-code", "Claude Code", "claude", true, true, true, "2.0.76", "@anthropic-ai/claude-code", 20},
		{"codex", "OpenAI Codex", "codex", false, true, true, "0.1.0", "@openai/codex", 6},
		{"cursor", "Cursor CLI", "cursor-agent", false, true, true, "0.1.0", "cursor.com/install", 5},
		{"copilot", "GitHub Copilot CLI", "copilot", false, false, false, "0.0.418", "@github/copilot", 4},
		{"opencode", "OpenCode", "opencode", false, true, true, "0.1.0", "opencode-ai", 6},
		{"command", "Agent command", "", false, false, true, "", "", 0},
	}
	for _, tc := range tests {
		d, _ := Get(tc.name)
		got := []any{d.DisplayName(), d.Binary(), d.SupportsAllowedTools(), d.SupportsSessions(), d.SupportsLive(), d.MinVersion(), len(d.ValidTools())}
		want := []any{tc.display, tc.binary, tc.allowlist, tc.sessions, tc.live, tc.minVersion, tc.tools}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
		if !strings.Contains(d.Install(), tc.installPattern) || (d.Package() == "") != (tc.name == "command") {
			t.Errorf("%s: Install() = %q, want it to mention %q", tc.name, d.Install(), tc.installPattern)
		}
		help := strings.Join(d.PermissionHelp(".ralphrc"), "\n")
		if !strings.Contains(help, ".ralphrc") {
			t.Errorf("%s: permission help does not name the config file:\n%s", tc.name, help)
		}
	}
}

func TestValidateTools(t *testing.T) {
	claude, _ := Get("claude-code")
	codex, _ := Get("codex")
	tests := []struct {
		d       Driver
		tools   []string
		wantErr string
	}{
		{claude, defaultTools, ""},
		{claude, []string{"Bash(git *)", "Bash(make test)", "AskUserQuestion"}, ""},
		{claude, []string{"Read", "read"}, `invalid tool "read" for Claude Code`},
		{claude, []string{"Bash()"}, `invalid tool "Bash()"`},
		{claude, []string{"Bash(x"}, `invalid tool "Bash(x"`},
		{codex, []string{"shell", "read_file"}, ""},
		{codex, []string{"Write"}, `invalid tool "Write" for OpenAI Codex`},
	}
	for _, tc := range tests {
		err := ValidateTools(tc.d, tc.tools)
		switch {
		case tc.wantErr == "" && err != nil:
			t.Errorf("%v: %v", tc.tools, err)
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("%v: error %v, want %q", tc.tools, err, tc.wantErr)
		}
	}
}

func TestBuildErrors(t *testing.T) {
	tests := []struct {
		driver  string
		req     Request
		wantErr string
	}{
		{"claude-code", Request{Prompt: "\n\n"}, "build claude command: the prompt is empty"},
		{"codex", Request{Prompt: ""}, "build codex command: the prompt is empty"},
		{"opencode", Request{Prompt: "a\x00b"}, "NUL byte"},
		{"command", Request{Prompt: "p"}, "AGENT_COMMAND is empty"},
		{"command", Request{Prompt: "p", Command: []string{"x"}, PromptMode: "file"}, `unknown prompt mode "file"`},
	}
	if runtime.GOOS == "linux" {
		tests = append(tests, struct {
			driver  string
			req     Request
			wantErr string
		}{"copilot", Request{Prompt: strings.Repeat("x", maxArgLen+1)}, "Linux allows 131071 per argument"})
	}
	for _, tc := range tests {
		d, _ := Get(tc.driver)
		_, err := d.Build(tc.req)
		if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
			t.Errorf("%s %q...: error %v, want %q", tc.driver, trunc(tc.req.Prompt), err, tc.wantErr)
		}
	}
	// The largest argument Linux takes still builds; stdin has no such limit.
	d, _ := Get("copilot")
	if _, err := d.Build(Request{Prompt: "p" + strings.Repeat("x", maxArgLen-1)}); err != nil {
		t.Errorf("prompt of exactly %d bytes: %v", maxArgLen, err)
	}
	d, _ = Get("command")
	if _, err := d.Build(Request{Prompt: strings.Repeat("x", 4*maxArgLen), Command: []string{"a"}}); err != nil {
		t.Errorf("big prompt on stdin: %v", err)
	}
}

func trunc(s string) string {
	if len(s) > 20 {
		return s[:20]
	}
	return s
}

func TestWarnings(t *testing.T) {
	claude, _ := Get("claude-code")
	codex, _ := Get("codex")
	tests := []struct {
		name string
		d    Driver
		req  Request
		euid int
		want bool
	}{
		{"root default mode", claude, Request{}, 0, true},
		{"root explicit bypass", claude, Request{PermissionMode: "bypassPermissions"}, 0, true},
		{"not root", claude, Request{}, 1000, false},
		{"root acceptEdits", claude, Request{PermissionMode: "acceptEdits"}, 0, false},
		{"root IS_SANDBOX=1", claude, Request{Env: []string{"IS_SANDBOX=1"}}, 0, false},
		{"root IS_SANDBOX=0", claude, Request{Env: []string{"IS_SANDBOX=1", "IS_SANDBOX=0"}}, 0, true},
		{"root bubblewrap", claude, Request{Env: []string{"CLAUDE_CODE_BUBBLEWRAP=1"}}, 0, false},
		{"root other driver", codex, Request{}, 0, false},
	}
	for _, tc := range tests {
		got := Warnings(tc.d, tc.req, tc.euid)
		if (len(got) > 0) != tc.want {
			t.Errorf("%s: warnings %q, want some = %v", tc.name, got, tc.want)
		}
	}
}
