package drivers

import (
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"testing"
)

// The error texts below are the CLIs' own, as users reported them in
// the CLIs' issue trackers (request ids shortened).
func TestDiagnose(t *testing.T) {
	const (
		T = FailureTransient
		P = FailurePermanent
		U = FailureUnknown
	)
	tests := []struct {
		driver string
		text   string
		class  FailureClass
		cause  string // a part of the cause
	}{
		// Claude Code (claude -p: the result text, or stdout in text mode).
		{"claude-code", `API Error: 529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":null}`, T, "overloaded"},
		{"claude-code", `API Error (529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":null}) · Retrying in 4 seconds… (attempt 4/10)`, T, "overloaded"},
		{"claude-code", "API Error: 529 Overloaded. This is a server-side issue, usually temporary — try again in a moment. If it persists, check https://status.claude.com.", T, "overloaded"},
		{"claude-code", `API Error: 500 {"type":"error","error":{"type":"api_error","message":"Internal server error"},"request_id":"req_011CY156"}`, T, "server error"},
		{"claude-code", "API Error: 500 Internal server error. This is a server-side issue, usually temporary — try again in a moment.", T, "server error"},
		{"claude-code", "API Error: Connection error.", T, "could not be reached"},
		{"claude-code", "Connection error.", T, "could not be reached"},
		{"claude-code", "API Error: Request timed out.", T, "did not answer in time"},
		{"claude-code", "Error: read ECONNRESET", T, "could not be reached"},
		{"claude-code", "Invalid API key · Please run /login", P, "not logged in"},
		{"claude-code", "Invalid API key · Fix external API key", P, "not logged in"},
		{"claude-code", "Missing API key · Run /login", P, "not logged in"},
		{"claude-code", `API Error: 401 {"type":"error","error":{"type":"authentication_error","message":"OAuth token has expired. Please obtain a new token or refresh your existing token."}}`, P, "not logged in"},
		{"claude-code", "Credit balance is too low", P, "no credit"},
		// As root with bypassPermissions, outside a sandbox (stderr, exit 1).
		{"claude-code", "--dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons", P, "refuses to run as root"},
		{"claude-code", "OAuth token revoked · Please run /login", P, "not logged in"},
		{"claude-code", "Error: connect ECONNREFUSED 10.0.0.1:443 (https://auth.example.com/login)", T, "could not be reached"},
		{"claude-code", "There's an issue with the selected model (claude-nope). It may not exist or you may not have access to it. Run --model to pick a different model.", P, "model"},
		{"claude-code", `API Error: 404 {"type":"error","error":{"type":"not_found_error","message":"model: claude-nope"}}`, P, "model"},
		{"claude-code", "error: unknown option '--system-prompt-snapshot'", P, "command line"},
		{"claude-code", `API Error: 400 {"type":"error","error":{"type":"invalid_request_error","message":"The request body is not valid JSON"}}`, U, ""},
		{"claude-code", "Error: something else went wrong", U, ""},
		{"claude-code", "", U, ""},
		// The last line decides: retries of a 529, then the final error.
		{"claude-code", "API Error: 529 Overloaded\nInvalid API key · Please run /login", P, "not logged in"},
		{"claude-code", "I fixed the login page: it said Invalid API key before.\nAPI Error: 529 Overloaded", T, "overloaded"},

		// Codex (codex exec: error / turn.failed events and stderr).
		{"codex", "stream error: exceeded retry limit, last status: 500 Internal Server Error, request id: 3c42", T, "server error"},
		{"codex", "stream disconnected before completion: error sending request for url (https://chatgpt.com/backend-api/codex/responses)", T, "broke off"},
		{"codex", "Reconnecting... 2/5", T, "broke off"},
		{"codex", "unexpected status 503 Service Unavailable: upstream connect error", T, "server error"},
		{"codex", "We're currently experiencing high demand, which may cause temporary errors.", T, "capacity"},
		{"codex", `unexpected status 401 Unauthorized: {"detail":"Unauthorized"}, url: https://chatgpt.com/backend-api/codex/responses`, P, "not logged in"},
		{"codex", "stream error: exceeded retry limit, last status: 401 Unauthorized, request id: 9d5f", P, "not logged in"},
		{"codex", "unexpected status 401 Unauthorized: Incorrect API key provided: sk-abc***", P, "not logged in"},
		{"codex", "Reconnecting... 5/5\nunexpected status 401 Unauthorized:", P, "not logged in"},
		{"codex", `unexpected status 400 Bad Request: {"detail":"The 'gpt-9' model is not supported when using Codex with a ChatGPT account."}`, P, "model"},
		{"codex", "error: unexpected argument '--sandbox' found", P, "command line"},
		{"codex", "tool call failed: exit status 1", U, ""},

		// Cursor, Copilot, OpenCode.
		{"cursor", "Authentication required. Please run 'cursor-agent login' first, or set CURSOR_API_KEY environment variable.", P, "not logged in"},
		{"cursor", "Error: Connection error: ECONNREFUSED", T, "could not be reached"},
		{"copilot", "Error: No authentication information found.", P, "not logged in"},
		{"copilot", "Error: 503 Service Unavailable", T, "server error"},
		{"copilot", "Invalid command format", P, "command line"},
		{"opencode", "ProviderAuthError: no API key found for anthropic", P, "not logged in"},
		{"opencode", "ProviderModelNotFoundError: model not found: anthropic/claude-nope", P, "model"},
		{"opencode", `AI_APICallError: Overloaded`, T, "overloaded"},

		// The command driver's output is the command's own: nothing is read.
		{"command", "Error: read ECONNRESET", U, ""},
		{"command", "Invalid API key · Please run /login", U, ""},
	}
	for i, tc := range tests {
		t.Run(fmt.Sprintf("%d_%s", i, tc.driver), func(t *testing.T) {
			d, err := Get(tc.driver)
			if err != nil {
				t.Fatal(err)
			}
			got := Diagnose(d, tc.text)
			if got.Class != tc.class {
				t.Fatalf("Diagnose(%q) = %+v, want class %d", tc.text, got, tc.class)
			}
			if !strings.Contains(got.Cause, tc.cause) {
				t.Errorf("cause %q, want it to contain %q", got.Cause, tc.cause)
			}
			if tc.class == FailurePermanent && got.Fix == "" {
				t.Errorf("permanent %+v has no fix", got)
			}
			if tc.class != FailureUnknown && (got.Said == "" || !strings.Contains(tc.text, got.Said)) {
				t.Errorf("said %q, want a line of the text", got.Said)
			}
		})
	}
}

func TestDiagnoseNamesTheFix(t *testing.T) {
	got := Diagnose(claudeCode{}, "Invalid API key · Please run /login")
	line := got.Cause + ": " + got.Fix
	for _, want := range []string{"API key", "/login", "`claude`"} {
		if !strings.Contains(line, want) {
			t.Errorf("%q does not say %q", line, want)
		}
	}
}

func TestDiagnoseClipsWhatItQuotes(t *testing.T) {
	got := Diagnose(claudeCode{}, "API Error: 529 "+strings.Repeat("x", 5000))
	if got.Class != FailureTransient || len(got.Said) > maxSaid+40 {
		t.Errorf("Diagnose = class %d, said %d bytes", got.Class, len(got.Said))
	}
}

// What it quotes from the agent is shown on a terminal: no escape
// sequences get through.
func TestDiagnoseDropsControlCharacters(t *testing.T) {
	got := Diagnose(claudeCode{}, "API Error: 529 \x1b]0;pwned\a\x1b[31mOverloaded\r")
	if got.Class != FailureTransient || got.Said != "API Error: 529 ]0;pwned[31mOverloaded" {
		t.Errorf("Diagnose = %+v", got)
	}
}

func TestNotStarted(t *testing.T) {
	notFound := &exec.Error{Name: "claude", Err: exec.ErrNotFound}
	got := NotStarted(claudeCode{}, "claude", notFound, true)
	if got.Class != FailurePermanent || !strings.Contains(got.Fix, "npm install -g @anthropic-ai/claude-code") {
		t.Errorf("NotStarted(claude) = %+v", got)
	}
	got = NotStarted(command{}, "my-agent", notFound, true)
	if got.Class != FailurePermanent || !strings.Contains(got.Fix, "AGENT_COMMAND") {
		t.Errorf("NotStarted(command) = %+v", got)
	}
	if got := NotStarted(claudeCode{}, "claude", errors.New("fork/exec claude: resource temporarily unavailable"), false); got.Class != FailureUnknown {
		t.Errorf("another start error = %+v, want unknown", got)
	}
}

// Every driver's patterns compile and every permanent one has a fix.
func TestErrorPatternsComplete(t *testing.T) {
	for _, name := range Names() {
		d, _ := Get(name)
		for i, p := range d.(diagnosed).errorPatterns() {
			if p.Re == nil || p.Cause == "" {
				t.Errorf("%s pattern %d: %+v", name, i, p)
			}
			if (p.Class == FailurePermanent) != (p.Fix != "") {
				t.Errorf("%s pattern %d (%s): class %d with fix %q", name, i, p.Re, p.Class, p.Fix)
			}
		}
	}
}
