package drivers

import (
	"fmt"
	"sync"
)

// cursorCandidates are the names the Cursor CLI is installed under, in the
// order they are tried. On Windows, LookPath also finds the .cmd shims.
var cursorCandidates = []string{"cursor-agent", "agent"}

type cursor struct{}

func (cursor) Name() string               { return "cursor" }
func (cursor) DisplayName() string        { return "Cursor CLI" }
func (cursor) Binary() string             { return "cursor-agent" }
func (cursor) Package() string            { return "https://cursor.com/cli" }
func (cursor) Install() string            { return "curl https://cursor.com/install -fsS | bash" }
func (cursor) MinVersion() string         { return "0.1.0" }
func (cursor) SupportsAllowedTools() bool { return false }
func (cursor) SupportsSessions() bool     { return true }
func (cursor) SupportsLive() bool         { return true }
func (cursor) Traits() Traits             { return Traits{ResultStream: true} }
func (cursor) candidates() []string       { return cursorCandidates }

// Errors: Cursor CLI's error messages: "Authentication required. Please
// run 'cursor-agent login' first, or set CURSOR_API_KEY", an unknown
// model, and the provider's and the network's transient failures.
func (cursor) errorPatterns() []errorPattern { return cursorErrors() }

var cursorErrors = sync.OnceValue(func() []errorPattern {
	return patterns([]errorPattern{
		permanent(`authentication required|not (logged in|authenticated)|agent login|invalid api key`,
			"Cursor CLI is not logged in or its API key is invalid", "run `cursor-agent login` (or set a valid CURSOR_API_KEY)"),
		modelUnknown("Cursor CLI", "choose a model it offers (`cursor-agent --list-models`)"),
	}, providerErrors(), networkErrors())
})

func (cursor) ValidTools() []string {
	return []string{"file_edit", "file_read", "file_write", "terminal", "search"}
}

func (d cursor) PermissionHelp(ralphrc string) []string {
	return []string{
		"  - " + d.DisplayName() + " decides permissions itself; ALLOWED_TOOLS in " + ralphrc + " has no effect on it",
		"  - ralph_loop runs it with --force",
		"  - Check the Cursor permission and approval settings, then restart the loop",
	}
}

// Build returns
//
//	<abs path>/cursor-agent -p --force --output-format json|stream-json [--resume <id>] [--] <context+prompt>
//
// argv[0] is the absolute path of the first of cursor-agent, agent that
// LookPath finds, or the bare name cursor-agent when neither is found.
func (d cursor) Build(req Request) (Spec, error) {
	prompt, err := combinedPrompt(req)
	if err != nil {
		return Spec{}, fmt.Errorf("build cursor command: %w", err)
	}
	bin := d.Binary()
	if path, ok := resolve(lookPath(req), cursorCandidates); ok {
		bin = path
	}
	outFormat, format := "json", FormatCursorJSON
	if req.Live {
		outFormat, format = "stream-json", FormatCursorStreamJSON
	}
	argv := []string{bin, "-p", "--force", "--output-format", outFormat}
	if req.SessionID != "" {
		argv = append(argv, "--resume", req.SessionID)
	}
	argv = positional(argv, prompt)
	return finish(req, argv, "", format)
}

// resolve returns the path of the first name lookPath finds.
func resolve(lookPath func(string) (string, error), names []string) (string, bool) {
	for _, name := range names {
		if path, err := lookPath(name); err == nil && path != "" {
			return path, true
		}
	}
	return "", false
}
