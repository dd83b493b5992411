package drivers

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestOpenCodeSessionFromOutput(t *testing.T) {
	var f sessionFinder = opencode{}
	tests := []struct {
		name, out, want string
	}{
		{"1.x events", lines(
			`{"type":"step_start","timestamp":1,"sessionID":"ses_abc","part":{}}`,
			`{"type":"text","timestamp":2,"sessionID":"ses_abc","part":{"text":"hi"}}`), "ses_abc"},
		{"legacy session object", lines(
			`{"type":"session.created","session":{"id":"ses-1","title":"ralph"}}`,
			`{"type":"message.updated","session_id":"ses-1","message":{"role":"assistant"}}`), "ses-1"},
		{"legacy with CR", "{\"session\": {\"title\":\"t\", \"id\" : \"ses-2\"}}\r\n", "ses-2"},
		{"null ids are not ids", lines(`{"sessionID":"null"}`, `{"session":{"id":"null"}}`), ""},
		{"fixture opencode_jsonl_response.jsonl", lines(
			`{"type":"session.created","session":{"id":"opencode-session-123"}}`,
			`{"type":"message.updated","message":{"role":"assistant","parts":[{"type":"text","text":"Completed."}]}}`), "opencode-session-123"},
		{"nothing", "plain text\n", ""},
		{"empty", "", ""},
	}
	for _, tc := range tests {
		if got := f.SessionFromOutput([]byte(tc.out)); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestOpenCodeSessionList(t *testing.T) {
	var f sessionFinder = opencode{}
	spec := f.SessionListSpec(Request{Dir: "/p", Env: []string{"A=1"}})
	if diff := cmp.Diff(Spec{Argv: []string{"opencode", "session", "list", "--format", "json"}, Env: []string{"A=1"}, Dir: "/p", Format: FormatText}, spec); diff != "" {
		t.Errorf("spec (-want +got):\n%s", diff)
	}
	tests := []struct {
		name, out, want string
	}{
		{"one session", `[{"id":"ses_1","title":"t","updated":1,"created":1,"projectId":"p","directory":"/p"}]`, "ses_1"},
		{"two sessions: do not guess", `[{"id":"ses_1"},{"id":"ses_2"}]`, ""},
		{"empty output", ``, ""},
		{"empty list", `[]`, ""},
		{"wrapped object", `{"sessions":[{"id":"ses_9"}]}`, "ses_9"},
		{"blank and null ids skipped", `[{"id":""},{"id":null},{"id":"null"},{"id":"ses_3"}]`, "ses_3"},
		{"not JSON", `Error: no project`, ""},
	}
	for _, tc := range tests {
		if got := f.SessionFromList([]byte(tc.out)); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
}
