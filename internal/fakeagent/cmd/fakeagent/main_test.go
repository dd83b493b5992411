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

	// started and release: the latch of a -wait script, by hand
	if code := tool([]string{"reply", "-wait", "Waiting."}, dir, &out, &errOut); code != 0 {
		t.Fatalf("reply -wait: exit %d, %s", code, errOut.String())
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "default.wait")); strings.TrimSpace(string(b)) != "true" {
		t.Errorf("default.wait = %q, want true", b)
	}
	os.WriteFile(filepath.Join(calls, "1.started"), []byte("42\n"), 0o644)
	if code := tool([]string{"started", "1"}, dir, &out, &errOut); code != 0 {
		t.Errorf("started 1: exit %d, %s", code, errOut.String())
	}
	errOut.Reset()
	if code := tool([]string{"started", "2", "1"}, dir, &out, &errOut); code != 2 || !strings.Contains(errOut.String(), "did not start within 1s") {
		t.Errorf("started 2 1: exit %d, %q", code, errOut.String())
	}
	if code := tool([]string{"release", "1"}, dir, &out, &errOut); code != 0 {
		t.Errorf("release 1: exit %d, %s", code, errOut.String())
	}
	if _, err := os.Stat(filepath.Join(calls, "1.release")); err != nil {
		t.Errorf("release 1 wrote no calls/1.release: %v", err)
	}
	errOut.Reset()
	if code := tool([]string{"release"}, dir, &out, &errOut); code != 2 || !strings.Contains(errOut.String(), "release needs a call number") {
		t.Errorf("release without N: exit %d, %q", code, errOut.String())
	}

	errOut.Reset()
	if code := tool([]string{"bogus"}, dir, &out, &errOut); code != 2 || !strings.Contains(errOut.String(), "unknown command") {
		t.Errorf("bogus: exit %d, %q", code, errOut.String())
	}
	if code := tool([]string{"count"}, "", &out, &errOut); code != 2 {
		t.Errorf("count without $FAKE_AGENT_DIR: exit %d, want 2", code)
	}
}
