package drivers

import (
	"fmt"
	"strings"
	"sync"
)

type copilot struct{}

func (copilot) Name() string               { return "copilot" }
func (copilot) DisplayName() string        { return "GitHub Copilot CLI" }
func (copilot) Binary() string             { return "copilot" }
func (copilot) Package() string            { return "@github/copilot" }
func (copilot) Install() string            { return "npm install -g @github/copilot" }
func (copilot) MinVersion() string         { return "0.0.418" }
func (copilot) SupportsAllowedTools() bool { return false }
func (copilot) SupportsSessions() bool     { return false }
func (copilot) SupportsLive() bool         { return false }
func (copilot) Traits() Traits             { return Traits{} }

// Errors: GitHub Copilot CLI's error messages: "No authentication
// information found", a token without Copilot access, an unknown model,
// and the provider's and the network's transient failures.
func (copilot) errorPatterns() []errorPattern { return copilotErrors() }

var copilotErrors = sync.OnceValue(func() []errorPattern {
	return patterns([]errorPattern{
		permanent(`no authentication information|not (logged in|authenticated)|bad credentials|401 Unauthorized`,
			"GitHub Copilot CLI is not logged in", "run `copilot` once and /login (or set GH_TOKEN to a token with Copilot access)"),
		permanent(`(no|not have) access to (github )?copilot|copilot is not enabled|copilot subscription`,
			"this GitHub account has no Copilot access", "enable Copilot for the account, or log in with one that has it"),
		permanent(`invalid command format`,
			"GitHub Copilot CLI rejected the command line ralph_loop gave it", "update it (`npm install -g @github/copilot`)"),
		modelUnknown("GitHub Copilot CLI", "choose a model it offers (/model in `copilot`, or COPILOT_MODEL)"),
	}, providerErrors(), networkErrors())
})

func (copilot) ValidTools() []string {
	return []string{"shell", "shell(git:*)", "shell(npm:*)", "write"}
}

func (d copilot) PermissionHelp(ralphrc string) []string {
	return []string{
		"  - " + d.DisplayName() + " decides permissions itself; ALLOWED_TOOLS in " + ralphrc + " has no effect on it",
		"  - ralph_loop runs it with --autopilot --yolo --no-ask-user",
		"  - Check the Copilot CLI permission settings, then restart the loop",
	}
}

// Build returns
//
//	copilot --autopilot --yolo --max-autopilot-continues 50 --no-ask-user -s -p <context+prompt>
//
// Sessions are not used: SessionID is ignored. A prompt starting with "-"
// is passed as --prompt=<prompt>, which the CLI cannot mistake for a flag.
func (copilot) Build(req Request) (Spec, error) {
	prompt, err := combinedPrompt(req)
	if err != nil {
		return Spec{}, fmt.Errorf("build copilot command: %w", err)
	}
	argv := []string{"copilot", "--autopilot", "--yolo", "--max-autopilot-continues", "50", "--no-ask-user", "-s"}
	if strings.HasPrefix(prompt, "-") {
		argv = append(argv, "--prompt="+prompt)
	} else {
		argv = append(argv, "-p", prompt)
	}
	return finish(req, argv, "", FormatText)
}
