package drivers

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// snapshotFlagVersion is the first Claude Code release that accepts
// --system-prompt-snapshot (2.1.252 rejects it as an unknown option).
var snapshotFlagVersion = version{2, 1, 257}

// defaultPermissionMode is the Claude permission mode used when none is set.
const defaultPermissionMode = "bypassPermissions"

type claudeCode struct{}

func (claudeCode) Name() string               { return "claude-code" }
func (claudeCode) DisplayName() string        { return "Claude Code" }
func (claudeCode) Binary() string             { return "claude" }
func (claudeCode) Package() string            { return "@anthropic-ai/claude-code" }
func (claudeCode) Install() string            { return "npm install -g @anthropic-ai/claude-code" }
func (claudeCode) MinVersion() string         { return "2.0.76" }
func (claudeCode) SupportsAllowedTools() bool { return true }
func (claudeCode) SupportsSessions() bool     { return true }
func (claudeCode) SupportsLive() bool         { return true }
func (claudeCode) Traits() Traits {
	return Traits{ResultStream: true, OutputFormat: true, MinVersionSetting: true}
}

// Errors: Claude Code's error messages, as `claude -p` prints them (in
// its result with is_error: true, or as plain text): "Invalid API key ·
// Please run /login", `API Error: 529 {"type":"error","error":{"type":
// "overloaded_error",...}}`, "API Error: 500 ...", "Connection error.",
// "API Error: Request timed out.", commander's "error: unknown option"
// for a command line it rejects, and its refusal to run as root
// (ClaudeRootRefusal, on stderr, exit 1).
func (claudeCode) errorPatterns() []errorPattern { return claudeErrors() }

var claudeErrors = sync.OnceValue(func() []errorPattern {
	return patterns([]errorPattern{
		permanent(`invalid api key|missing api key|run /login|not logged in|oauth token (has )?(expired|been revoked)|authentication_error|could not resolve authentication method|invalid bearer token|invalid x-api-key`,
			"Claude Code is not logged in or its API key is invalid", "run `claude` once and /login (or set a valid ANTHROPIC_API_KEY)"),
		permanent(regexp.QuoteMeta(ClaudeRootRefusal),
			"Claude Code refuses to run as root with CLAUDE_PERMISSION_MODE=bypassPermissions outside a sandbox", RootBypassFix),
		permanent(`credit balance is too low`,
			"the Anthropic account Claude Code uses has no credit left", "add credits in the Anthropic Console, or /login with a Claude subscription"),
		permanent(`issue with the selected model|not_found_error.*model:`,
			"Claude Code cannot use the model it was asked for", "choose a model it offers: check ANTHROPIC_MODEL and \"model\" in ~/.claude/settings.json"),
		modelUnknown("Claude Code", "choose a model it offers: check ANTHROPIC_MODEL and \"model\" in ~/.claude/settings.json"),
		permanent(`^error: (unknown option|option .* argument .* is invalid|missing required argument|too many arguments|unknown command)`,
			"Claude Code rejected the command line ralph_loop gave it", "update it (`npm install -g @anthropic-ai/claude-code`) and check CLAUDE_PERMISSION_MODE and ALLOWED_TOOLS"),
		transient(`overloaded_error|api error:? \(?529`, causeOverloaded),
		transient(`api error:? \(?5\d\d|"type":"api_error"`, causeServer),
		transient(`^(api error: )?connection error`, causeNetwork),
		transient(`^(api error: )?request timed out`, causeTimeout),
	}, providerErrors(), networkErrors())
})

func (claudeCode) ValidTools() []string {
	return []string{
		"Write", "Read", "Edit", "MultiEdit", "Glob", "Grep", "Task", "TodoWrite",
		"WebFetch", "WebSearch", "AskUserQuestion", "EnterPlanMode", "ExitPlanMode",
		"Bash", "Bash(git *)", "Bash(npm *)", "Bash(bats *)", "Bash(python *)",
		"Bash(node *)", "NotebookEdit",
	}
}

func (claudeCode) PermissionHelp(ralphrc string) []string {
	return []string{
		"  1. Unattended Claude Code loops need CLAUDE_PERMISSION_MODE=bypassPermissions in " + ralphrc,
		"  2. A denial at an interactive approval step is not fixed by ALLOWED_TOOLS",
		"  3. For a denied tool, add it to ALLOWED_TOOLS in " + ralphrc + ", for example:",
		"     Bash              any shell command",
		"     Bash(npm *)       npm commands only",
		"     Bash(node *)      node commands only",
		"     AskUserQuestion   lets the agent stop and ask you",
		"  4. Then clear the stale session and start again:",
		"     ralph_loop --reset-session",
		"     bmalph run",
	}
}

// Build returns
//
//	claude [--output-format json|stream-json] --permission-mode <mode>
//	       [--allowedTools <tool>...] [--resume <id> [--system-prompt-snapshot off]]
//	       [--append-system-prompt <context>]
//	       [--verbose --include-partial-messages]   (live only)
//	       -p [--] <prompt>
func (claudeCode) Build(req Request) (Spec, error) {
	prompt, err := promptText(req)
	if err != nil {
		return Spec{}, fmt.Errorf("build claude command: %w", err)
	}
	argv := []string{"claude"}
	format := FormatText
	switch {
	case req.Live:
		argv = append(argv, "--output-format", "stream-json")
		format = FormatClaudeStreamJSON
	case req.OutputFormat == "json":
		argv = append(argv, "--output-format", "json")
		format = FormatClaudeJSON
	}
	mode := req.PermissionMode
	if mode == "" {
		mode = defaultPermissionMode
	}
	argv = append(argv, "--permission-mode", mode)
	if tools := cleanTools(req.AllowedTools); len(tools) > 0 {
		argv = append(argv, "--allowedTools")
		argv = append(argv, tools...)
	}
	if req.SessionID != "" {
		argv = append(argv, "--resume", req.SessionID)
		// With the snapshot on (the default since 2.1.265) a resumed
		// conversation keeps the system prompt of its first call, so this
		// loop's context would be dropped. Older CLIs reject the flag.
		if v, ok := parseVersion(req.CLIVersion); ok && v.compare(snapshotFlagVersion) >= 0 {
			argv = append(argv, "--system-prompt-snapshot", "off")
		}
	}
	if sys := joinBlocks(req.Context, req.SystemExtra); sys != "" {
		argv = append(argv, "--append-system-prompt", sys)
	}
	if req.Live {
		// Before -p: after a "--" they would be read as prompt words.
		argv = append(argv, "--verbose", "--include-partial-messages")
	}
	argv = append(argv, "-p")
	argv = positional(argv, prompt)
	return finish(req, argv, "", format)
}

// cleanTools trims each entry and drops empty ones.
func cleanTools(tools []string) []string {
	var out []string
	for _, t := range tools {
		if t = strings.TrimSpace(t); t != "" {
			out = append(out, t)
		}
	}
	return slices.Clip(out)
}
