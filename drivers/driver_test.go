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

func TestAllowedTool(t *testing.T) {
	claude, _ := Get("claude-code")
	codex, _ := Get("codex")
	tests := []struct {
		d    Driver
		tool string
		want bool
	}{
		{claude, "Bash(git *)", true},
		{claude, "Bash(make test)", true},
		{claude, "AskUserQuestion", true},
		{claude, "read", false},
		{claude, "Bash()", false},
		{claude, "Bash(x", false},
		{codex, "shell", true},
		{codex, "read_file", true},
		{codex, "Write", false},
	}
	for _, tt := range defaultTools {
		tests = append(tests, struct {
			d    Driver
			tool string
			want bool
		}{claude, tt, true})
	}
	for _, tc := range tests {
		if got := AllowedTool(tc.d, tc.tool); got != tc.want {
			t.Errorf("AllowedTool(%s, %q) = %v, want %v", tc.d.Name(), tc.tool, got, tc.want)
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

// TestFormats: each driver reads its CLI's format first (own: a lone
// event is its output); the command driver can run any CLI and detects,
// Copilot prints text.
func TestFormats(t *testing.T) {
	want := map[string]string{
		"claude-code": "claude codex opencode", "cursor": "claude codex opencode", "claude": "claude codex opencode",
		"codex": "codex(own) opencode claude", "opencode": "opencode(own) codex claude",
		"command": "codex opencode claude", "unknown": "codex opencode claude", "copilot": "",
	}
	for _, name := range append(Names(), "claude", "unknown") {
		var got []string
		for _, f := range Formats(name) {
			switch r := f().(type) {
			case *claudeReader:
				got = append(got, "claude")
			case *codexReader:
				got = append(got, "codex"+map[bool]string{true: "(own)"}[r.own])
			case *openCodeReader:
				got = append(got, "opencode"+map[bool]string{true: "(own)"}[r.own])
			}
		}
		if w, ok := want[name]; !ok || strings.Join(got, " ") != w {
			t.Errorf("Formats(%q) = %q, want %q", name, strings.Join(got, " "), w)
		}
	}
}
