package drivers

import (
	"errors"
	"fmt"
)

type command struct{}

func (command) Name() string               { return "command" }
func (command) DisplayName() string        { return "Agent command" }
func (command) Binary() string             { return "" }
func (command) Package() string            { return "" }
func (command) Install() string            { return "" }
func (command) MinVersion() string         { return "" }
func (command) ValidTools() []string       { return nil }
func (command) SupportsAllowedTools() bool { return false }
func (command) SupportsSessions() bool     { return false }
func (command) SupportsLive() bool         { return true }
func (command) Traits() Traits             { return Traits{} }

// Errors: none. An arbitrary command's output is its own text, where
// "connection refused" may be a test it ran; only a command that cannot
// be started is told apart (NotStarted).
func (command) errorPatterns() []errorPattern { return nil }

func (d command) PermissionHelp(ralphrc string) []string {
	return []string{
		"  - AGENT_COMMAND runs your own agent command; ALLOWED_TOOLS in " + ralphrc + " has no effect on it",
		"  - Give the command the permissions it needs through its own options, then restart the loop",
	}
}

// errNoCommand is returned when the command driver gets no AGENT_COMMAND.
var errNoCommand = errors.New("AGENT_COMMAND is empty (set it to the agent's command line, e.g. AGENT_COMMAND=\"aider --yes-always --message-file -\")")

// Build runs req.Command (AGENT_COMMAND, split into words by config). The loop
// context and the prompt, separated by a blank line, go to stdin, or with
// PromptMode "arg" become the last argument. Output is read as plain text.
func (command) Build(req Request) (Spec, error) {
	if len(req.Command) == 0 || req.Command[0] == "" {
		return Spec{}, fmt.Errorf("build agent command: %w", errNoCommand)
	}
	prompt, err := combinedPrompt(req)
	if err != nil {
		return Spec{}, fmt.Errorf("build agent command: %w", err)
	}
	argv := append([]string(nil), req.Command...)
	switch req.PromptMode {
	case "", promptStdin:
		return finish(req, argv, prompt+"\n", FormatText)
	case promptArg:
		return finish(req, append(argv, prompt), "", FormatText)
	default:
		return Spec{}, fmt.Errorf("build agent command: unknown prompt mode %q (use %q or %q)", req.PromptMode, promptStdin, promptArg)
	}
}
