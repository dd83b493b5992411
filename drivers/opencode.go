package drivers

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/ralphloop/ralph_loop/internal/lazyre"
)

type opencode struct{}

func (opencode) Name() string               { return "opencode" }
func (opencode) DisplayName() string        { return "OpenCode" }
func (opencode) Binary() string             { return "opencode" }
func (opencode) Package() string            { return "opencode-ai" }
func (opencode) Install() string            { return "npm install -g opencode-ai" }
func (opencode) MinVersion() string         { return "0.1.0" }
func (opencode) SupportsAllowedTools() bool { return false }
func (opencode) SupportsSessions() bool     { return true }
func (opencode) SupportsLive() bool         { return true }
func (opencode) Traits() Traits             { return Traits{} }

// Errors: OpenCode's error messages (its error events and stderr): a
// ProviderAuthError or a missing API key, a ProviderModelNotFoundError,
// and the provider's and the network's transient failures.
func (opencode) errorPatterns() []errorPattern { return opencodeErrors() }

var opencodeErrors = sync.OnceValue(func() []errorPattern {
	return patterns([]errorPattern{
		permanent(`ProviderAuthError|no api key|api key (is )?(missing|invalid|not set)|invalid api key|not logged in|401 Unauthorized`,
			"OpenCode is not logged in to its provider or the API key is invalid", "run `opencode auth login`"),
		modelUnknown("OpenCode", "choose a model it offers (`opencode models`)"),
	}, providerErrors(), networkErrors())
})

func (opencode) ValidTools() []string {
	return []string{"bash", "read", "write", "edit", "grep", "question"}
}

func (d opencode) PermissionHelp(ralphrc string) []string {
	return []string{
		"  - " + d.DisplayName() + " decides permissions itself; ALLOWED_TOOLS in " + ralphrc + " has no effect on it",
		"  - In `opencode run` every permission its configuration sets to \"ask\" is rejected automatically",
		"  - Set those permissions to \"allow\" in the OpenCode configuration, then restart the loop",
	}
}

// Build returns
//
//	opencode run --agent build --format json [--continue --session <id>] [--] <context+prompt>
//
// Live mode uses the same command.
func (opencode) Build(req Request) (Spec, error) {
	prompt, err := combinedPrompt(req)
	if err != nil {
		return Spec{}, fmt.Errorf("build opencode command: %w", err)
	}
	argv := []string{"opencode", "run", "--agent", "build", "--format", "json"}
	if req.SessionID != "" {
		argv = append(argv, "--continue", "--session", req.SessionID)
	}
	argv = positional(argv, prompt)
	return finish(req, argv, "", FormatOpenCodeJSONL)
}

// sessionFinder is implemented by drivers with their own ways to recover the
// session id of a finished call, tried around the generic extraction of the
// analysis package (today only opencode):
//
//  1. SessionFromOutput(raw stdout); when it gives "", the generic extraction;
//  2. when that gives nothing either, run SessionListSpec and pass its stdout
//     to SessionFromList.
type sessionFinder interface {
	SessionFromOutput(out []byte) string
	SessionListSpec(req Request) Spec
	SessionFromList(out []byte) string
}

var _ sessionFinder = opencode{}

// openCodeLegacySession matches the object form `"session": {... "id": "x"}`
// that older OpenCode event streams were assumed to carry.
var openCodeLegacySession = lazyre.Compile(`"session"[^{]*\{[^}]*"id"\s*:\s*"([^"]*)"`)

// SessionFromOutput returns the session id of an `opencode run --format json`
// stream: the "sessionID" of the first event that has one (the real 1.x
// format), else the id of a "session" object on the first line that has one.
func (opencode) SessionFromOutput(out []byte) string {
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 64*1024), len(out)+1)
	for sc.Scan() {
		var ev struct {
			SessionID string `json:"sessionID"`
		}
		if json.Unmarshal(sc.Bytes(), &ev) == nil && ev.SessionID != "" && ev.SessionID != "null" {
			return ev.SessionID
		}
	}
	for line := range bytes.Lines(out) {
		if m := openCodeLegacySession().FindSubmatch(line); m != nil {
			if id := string(bytes.TrimRight(m[1], "\r")); id != "" && id != "null" {
				return id
			}
		}
	}
	return ""
}

// SessionListSpec is `opencode session list --format json`, run in the
// project directory.
func (opencode) SessionListSpec(req Request) Spec {
	return Spec{
		Argv:   []string{"opencode", "session", "list", "--format", "json"},
		Env:    agentEnv(req.Env),
		Dir:    req.Dir,
		Format: FormatText,
	}
}

// SessionFromList returns the id of the only session listed; "" when the
// list is empty, unreadable or has more than one session (the loop must not
// guess which one is its own).
func (opencode) SessionFromList(out []byte) string {
	type item struct {
		ID *string `json:"id"`
	}
	var list []item
	if err := json.Unmarshal(out, &list); err != nil {
		var wrapped struct {
			Sessions []item `json:"sessions"`
		}
		if json.Unmarshal(out, &wrapped) != nil {
			return ""
		}
		list = wrapped.Sessions
	}
	var ids []string
	for _, it := range list {
		if it.ID != nil && *it.ID != "" && *it.ID != "null" {
			ids = append(ids, *it.ID)
		}
	}
	if len(ids) != 1 {
		return ""
	}
	return ids[0]
}
