package drivers

import (
	"fmt"
	"sync"
)

type codex struct{}

func (codex) Name() string               { return "codex" }
func (codex) DisplayName() string        { return "OpenAI Codex" }
func (codex) Binary() string             { return "codex" }
func (codex) Package() string            { return "@openai/codex" }
func (codex) Install() string            { return "npm install -g @openai/codex" }
func (codex) MinVersion() string         { return "0.1.0" }
func (codex) SupportsAllowedTools() bool { return false }
func (codex) SupportsSessions() bool     { return true }
func (codex) SupportsLive() bool         { return true }
func (codex) Traits() Traits             { return Traits{} }

// Errors: Codex's error messages, as `codex exec` prints them (error and
// turn.failed events, stderr): "unexpected status 401 Unauthorized: ...",
// "stream error: exceeded retry limit, last status: 500 ...", "stream
// disconnected before completion: ...", "Reconnecting... 2/5", and clap's
// "error: unexpected argument" for a command line it rejects. A retry
// limit that ended on a 401 is a login problem, not an outage: the
// permanent patterns come first.
func (codex) errorPatterns() []errorPattern { return codexErrors() }

var codexErrors = sync.OnceValue(func() []errorPattern {
	return patterns([]errorPattern{
		permanent(`(status:?|last status:?)\s*401\b|401 Unauthorized|not logged in|incorrect api key|invalid api key|missing (openai )?api key|access token could not be refreshed`,
			"Codex is not logged in or its API key is invalid", "run `codex login` (or set a valid OPENAI_API_KEY)"),
		modelUnknown("Codex", "choose a model it offers: check \"model\" in ~/.codex/config.toml"),
		permanent(`^error: (unexpected argument|unrecognized subcommand|invalid value|the argument .* cannot be used)`,
			"Codex rejected the command line ralph_loop gave it", "update it (`npm install -g @openai/codex`)"),
		transient(`(status:?|last status:?)\s*5\d\d\b`, causeServer),
		transient(`stream error|stream disconnected|reconnecting\.\.\.|exceeded retry limit`, "the connection to the provider's API broke off"),
	}, providerErrors(), networkErrors())
})

func (codex) ValidTools() []string {
	return []string{"shell", "read_file", "write_file", "edit_file", "list_directory", "search_files"}
}

func (d codex) PermissionHelp(ralphrc string) []string {
	return []string{
		"  - " + d.DisplayName() + " applies its own sandbox and approval rules; ALLOWED_TOOLS in " + ralphrc + " has no effect on it",
		"  - ralph_loop runs it with --sandbox workspace-write, and codex exec never asks for approval",
		"  - Adjust the Codex sandbox/approval configuration, then restart the loop",
	}
}

// Build returns
//
//	codex exec --json --sandbox workspace-write [resume <id>] [--] <context+prompt>
//
// --sandbox must stay before "resume": the resume subcommand rejects it.
// Live mode uses the same command; its JSONL events stream as they happen.
func (codex) Build(req Request) (Spec, error) {
	prompt, err := combinedPrompt(req)
	if err != nil {
		return Spec{}, fmt.Errorf("build codex command: %w", err)
	}
	argv := []string{"codex", "exec", "--json", "--sandbox", "workspace-write"}
	if req.SessionID != "" {
		argv = append(argv, "resume", req.SessionID)
	}
	argv = positional(argv, prompt)
	return finish(req, argv, "", FormatCodexJSONL)
}
