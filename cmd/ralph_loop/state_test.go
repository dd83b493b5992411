package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// One run's environment never leaks into the next run in the same
// process: the reset command a run through bmalph's shim names is that
// run's, not a package setting the next run inherits.
func TestResetCommandIsPerRun(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, ".ralph"), 0o755); err != nil {
		t.Fatal(err)
	}
	open := `{"state":"OPEN","reason":"No progress detected in 3 consecutive loops","consecutive_no_progress":3}`
	if err := os.WriteFile(filepath.Join(dir, ".ralph", ".circuit_breaker_state"), []byte(open), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	circuit := func(env map[string]string) string {
		t.Helper()
		lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
		var out, errb bytes.Buffer
		if code := run([]string{"--circuit-status"}, strings.NewReader(""), &out, &errb, lookup); code != 0 {
			t.Fatalf("--circuit-status: exit %d\n%s", code, errb.String())
		}
		return out.String()
	}
	if got := circuit(map[string]string{"RALPH_SHIM": "bash .ralph/ralph_loop.sh"}); !strings.Contains(got, "bash .ralph/ralph_loop.sh --reset-circuit") {
		t.Errorf("through the shim, the hint misses the shim's command:\n%s", got)
	}
	if got := circuit(map[string]string{"HOME": dir}); strings.Contains(got, "bash .ralph") || !strings.Contains(got, "ralph_loop --reset-circuit") {
		t.Errorf("a later run without the shim names the shim's command:\n%s", got)
	}
}
