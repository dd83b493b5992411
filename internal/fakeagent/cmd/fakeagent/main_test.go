package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ralphloop/ralph_loop/internal/fakeagent"
)

// TestTool lays out a reply script and reads back what a call recorded.
func TestTool(t *testing.T) {
	dir := t.TempDir()
	var out, errOut bytes.Buffer
	if code := tool([]string{"reply", "-tasks", "1", "Did", "one", "task."}, dir, &out, &errOut); code != 0 {
		t.Fatalf("reply: exit %d, %s", code, errOut.String())
	}
	b, err := os.ReadFile(filepath.Join(dir, "default.out"))
	if err != nil {
		t.Fatal(err)
	}
	want := fakeagent.ClaudeJSON("Did one task.\n"+fakeagent.StatusBlock("IN_PROGRESS", false, 1), "sess-{{CALL}}")
	if string(b) != want {
		t.Errorf("default.out = %q, want %q", b, want)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "default.check")); strings.TrimSpace(string(b)) != "true" {
		t.Errorf("default.check = %q, want true (a task done ticks a box)", b)
	}

	if code := tool([]string{"count"}, dir, &out, &errOut); code != 0 || out.String() != "0\n" {
		t.Errorf("count before any call: exit %d, %q", code, out.String())
	}
	calls := filepath.Join(dir, "calls")
	os.MkdirAll(calls, 0o755)
	os.WriteFile(filepath.Join(calls, "count"), []byte("1\n"), 0o644)
	os.WriteFile(filepath.Join(calls, "1.argv.json"), []byte(`["claude","-p","--output-format","json"]`), 0o644)
	out.Reset()
	if code := tool([]string{"argv", "1"}, dir, &out, &errOut); code != 0 || out.String() != "claude\n-p\n--output-format\njson\n" {
		t.Errorf("argv 1: exit %d, %q", code, out.String())
	}

	errOut.Reset()
	if code := tool([]string{"bogus"}, dir, &out, &errOut); code != 2 || !strings.Contains(errOut.String(), "unknown command") {
		t.Errorf("bogus: exit %d, %q", code, errOut.String())
	}
	if code := tool([]string{"count"}, "", &out, &errOut); code != 2 {
		t.Errorf("count without $FAKE_AGENT_DIR: exit %d, want 2", code)
	}
}
