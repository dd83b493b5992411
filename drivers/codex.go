package drivers

import (
	"fmt"

	"github.com/ralphloop/ralph_loop/analysis"
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
func (codex) Family() analysis.Family    { return analysis.FamilyCodex }

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
