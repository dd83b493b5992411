package drivers

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestNestedSessionMarkersDropped: a loop started from inside a Claude Code
// session passes none of that session's markers to any agent, and keeps
// every other variable, the person's Claude settings included, in order.
func TestNestedSessionMarkersDropped(t *testing.T) {
	kept := []string{
		"HOME=/home/u",
		"CLAUDE_CODE_USE_BEDROCK=1",
		"CLAUDE_CODE_MAX_OUTPUT_TOKENS=64000",
		"CLAUDE_CONFIG_DIR=/home/u/.claude-work",
		"CLAUDECODE_NOT_A_MARKER=1",
		"PATH=/usr/bin",
	}
	env := []string{
		"CLAUDECODE=1",
		kept[0], kept[1],
		"CLAUDE_CODE_ENTRYPOINT=cli",
		"CLAUDE_CODE_SESSION_ID=5b0e",
		"CLAUDE_CODE_CHILD_SESSION=1",
		kept[2],
		"CLAUDE_CODE_BRIDGE_SESSION_ID=b1",
		"CLAUDE_CODE_MESSAGING_SOCKET=/tmp/cc.sock",
		"CLAUDE_CODE_MESSAGING_TOKEN=secret",
		kept[3], kept[4],
		"CLAUDE_CODE_EXECPATH=/usr/lib/node_modules/claude",
		"CLAUDE_PID=4242",
		kept[5],
	}
	for _, name := range Names() {
		d, err := Get(name)
		if err != nil {
			t.Fatal(err)
		}
		req := baseRequest()
		req.Env = append([]string(nil), env...)
		spec, err := d.Build(req)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if diff := cmp.Diff(kept, spec.Env); diff != "" {
			t.Errorf("%s: agent environment (-want +got):\n%s", name, diff)
		}
		if !cmp.Equal(req.Env, env) {
			t.Errorf("%s: Build changed the caller's environment slice", name)
		}
	}
	if got := (opencode{}).SessionListSpec(Request{Env: env}).Env; !cmp.Equal(got, kept) {
		t.Errorf("opencode session list environment: %q", got)
	}
}
