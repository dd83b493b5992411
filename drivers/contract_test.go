package drivers

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The argv the conformance suite requires (shared/conformance/scenarios
// driver.sh and config.sh, expect_argv_is / expect_argv lines). argv[0] is
// compared by base name there, as here.
func TestConformanceArgv(t *testing.T) {
	const prompt = "Ralph prompt PROMPT-MARKER-7f3a\nsecond line"
	const ctx1 = "Loop #1. Remaining tasks: 2. Next: - [ ] Task A."
	const ctx1one = "Loop #1. Remaining tasks: 1. Next: - [ ] Task A."
	want := func(parts ...any) []string {
		var out []string
		for _, p := range parts {
			switch v := p.(type) {
			case string:
				out = append(out, v)
			case []string:
				out = append(out, v...)
			}
		}
		return out
	}
	tests := []struct {
		driver string
		req    Request
		want   []string
	}{
		{"claude-code", Request{Prompt: prompt + "\n", Context: ctx1one, OutputFormat: "json", AllowedTools: defaultTools},
			want("claude", "--output-format", "json", "--permission-mode", "bypassPermissions",
				"--allowedTools", defaultTools, "--append-system-prompt", ctx1one, "-p", prompt)},
		// config-claude-flags-from-ralphrc: text format, acceptEdits, two tools
		{"claude-code", Request{Prompt: prompt, Context: ctx1one, OutputFormat: "text", PermissionMode: "acceptEdits",
			AllowedTools: []string{"Read", "Bash(git *)"}},
			want("claude", "--permission-mode", "acceptEdits", "--allowedTools", "Read", "Bash(git *)",
				"--append-system-prompt", ctx1one, "-p", prompt)},
		{"codex", Request{Prompt: prompt, Context: ctx1},
			want("codex", "exec", "--json", "--sandbox", "workspace-write", ctx1+"\n\n"+prompt)},
		{"cursor", Request{Prompt: prompt, Context: ctx1},
			want("cursor-agent", "-p", "--force", "--output-format", "json", ctx1+"\n\n"+prompt)},
		{"copilot", Request{Prompt: prompt, Context: ctx1},
			want("copilot", "--autopilot", "--yolo", "--max-autopilot-continues", "50", "--no-ask-user", "-s", "-p", ctx1+"\n\n"+prompt)},
		{"opencode", Request{Prompt: prompt, Context: ctx1},
			want("opencode", "run", "--agent", "build", "--format", "json", ctx1+"\n\n"+prompt)},
	}
	for _, tc := range tests {
		t.Run(tc.driver, func(t *testing.T) {
			tc.req.LookPath = fakeLookPath("cursor-agent")
			spec := mustBuild(t, tc.driver, tc.req)
			got := append([]string{baseName(spec.Argv[0])}, spec.Argv[1:]...)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("argv (-want +got):\n%s", diff)
			}
			if spec.Stdin != "" {
				t.Errorf("stdin = %q, want empty (/dev/null)", spec.Stdin)
			}
		})
	}
}

// The second calls of the conformance scenarios: resume positions.
func TestConformanceResume(t *testing.T) {
	ctx2 := "Loop #2. Session continued — do NOT re-read spec files. Resume implementation. "
	tests := []struct {
		driver   string
		from, to int
		want     []string
	}{
		{"codex", 0, 7, []string{"codex", "exec", "--json", "--sandbox", "workspace-write", "resume", "s-1"}},
		{"cursor", 1, 7, []string{"-p", "--force", "--output-format", "json", "--resume", "s-1"}},
		{"opencode", 1, 9, []string{"run", "--agent", "build", "--format", "json", "--continue", "--session", "s-1"}},
	}
	for _, tc := range tests {
		t.Run(tc.driver, func(t *testing.T) {
			spec := mustBuild(t, tc.driver, Request{Prompt: "p", Context: ctx2, SessionID: "s-1", LookPath: fakeLookPath("cursor-agent")})
			if diff := cmp.Diff(tc.want, spec.Argv[tc.from:tc.to]); diff != "" {
				t.Errorf("argv[%d:%d] (-want +got):\n%s", tc.from, tc.to, diff)
			}
			if last := spec.Argv[len(spec.Argv)-1]; !strings.HasPrefix(last, "Loop #2. ") {
				t.Errorf("prompt does not start with the context: %q", last)
			}
		})
	}
	// copilot never resumes; the prompt stays at index 8.
	spec := mustBuild(t, "copilot", Request{Prompt: "p", Context: "Loop #2. ", SessionID: "s-1"})
	if strings.Contains(strings.Join(spec.Argv, "\x00"), "s-1") || !strings.HasPrefix(spec.Argv[8], "Loop #2. ") {
		t.Errorf("copilot argv %q", spec.Argv)
	}
	// claude: --resume <id> and the context after --append-system-prompt.
	spec = mustBuild(t, "claude-code", Request{Prompt: "p", Context: ctx2, SessionID: "live-1", Live: true})
	if v := after(spec.Argv, "--resume"); v != "live-1" {
		t.Errorf("--resume value %q", v)
	}
	if v := after(spec.Argv, "--append-system-prompt"); v != ctx2 {
		t.Errorf("--append-system-prompt value %q", v)
	}
	if v := after(spec.Argv, "--output-format"); v != "stream-json" {
		t.Errorf("live --output-format value %q", v)
	}
	for _, f := range []string{"--verbose", "--include-partial-messages", "-p"} {
		if after(spec.Argv, f) == "\x00missing" {
			t.Errorf("live argv lacks %s: %q", f, spec.Argv)
		}
	}
}

func mustBuild(t *testing.T, name string, req Request) Spec {
	t.Helper()
	d, err := Get(name)
	if err != nil {
		t.Fatal(err)
	}
	spec, err := d.Build(req)
	if err != nil {
		t.Fatalf("build %s: %v", name, err)
	}
	return spec
}

func after(argv []string, flag string) string {
	for i, a := range argv {
		if a == flag {
			if i+1 < len(argv) {
				return argv[i+1]
			}
			return ""
		}
	}
	return "\x00missing"
}

func baseName(p string) string { return p[strings.LastIndexByte(p, '/')+1:] }
