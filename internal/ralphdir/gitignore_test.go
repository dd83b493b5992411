package ralphdir

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestGitIgnoreMatchesLoopOwned: git, reading the .ralph/.gitignore the
// loop writes, ignores exactly the paths LoopOwned calls the loop's own
// (the .gitignore itself aside, which stays tracked).
func TestGitIgnoreMatchesLoopOwned(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	top := t.TempDir()
	gitIn(t, top, "init", "-q", ".")
	d := New(filepath.Join(top, ".ralph"), nil)
	if err := os.MkdirAll(d.Root(), 0o755); err != nil {
		t.Fatal(err)
	}
	created, err := d.EnsureGitIgnore()
	if err != nil || !created {
		t.Fatalf("EnsureGitIgnore = %v, %v; want created", created, err)
	}
	paths := []string{
		"status.json", "progress.json", "live.log", "live.log.1", "live.log.5", "live.log.6",
		".call_count", ".last_reset", ".exit_signals", ".response_analysis", ".last_output_length",
		".loop_start_sha", ".loop_diff_summary", ".claude_session_id", ".ralph_session",
		".ralph_session_history", ".circuit_breaker_state", ".circuit_breaker_history",
		".quality_gate_results", ".review_findings.json", ".review_last_sha",
		".write_heartbeat_triggered", ".ralph_loop.lock", ".ralph_paused", ".failure_guard",
		".error_history", ".heartbeat_marker", "logs/ralph.log", "logs/.ralph_loop.lock",
		"logs/claude_output_2026-01-01_10-00-00-000_1.log", ".status.json.tmp-123",
		"status.json.qg_tmp", ".response_analysis.tmp", "@fix_plan.md.collapse_tmp",
		".ralph_session.corrupt-20260101-100000", ".fallback_session_id.codex",
		".fallback_session_id.claude-code.corrupt-20260101-100000", "..fallback_session_id.codex.tmp-42",
		".tmp-9", "@fix_plan.md", "PROMPT.md", "PROMPT.md.1", "@AGENT.md", "REVIEW_PROMPT.md",
		".ralphrc", "specs/a.md", "specs/status.json", "docs/generated/api.md", "src.tmp",
		"ralph_loop.sh", "lib/circuit_breaker.sh", "status.jsonx", "xstatus.json",
	}
	for _, rel := range paths {
		cmd := exec.Command("git", "check-ignore", "-q", "--no-index", ".ralph/"+rel)
		cmd.Dir = top
		err := cmd.Run()
		ignored := err == nil
		if ee, ok := err.(*exec.ExitError); err != nil && (!ok || ee.ExitCode() != 1) {
			t.Fatalf("git check-ignore %s: %v", rel, err)
		}
		if want := LoopOwned(rel); ignored != want {
			t.Errorf("git ignores .ralph/%s = %v, LoopOwned = %v", rel, ignored, want)
		}
	}
	// The .gitignore itself is the loop's, but tracked.
	cmd := exec.Command("git", "check-ignore", "-q", "--no-index", ".ralph/.gitignore")
	cmd.Dir = top
	if cmd.Run() == nil {
		t.Error("git ignores .ralph/.gitignore itself")
	}
}

// TestEnsureGitIgnoreKeepsExisting: a .gitignore that is there, whatever
// it holds, is never rewritten.
func TestEnsureGitIgnoreKeepsExisting(t *testing.T) {
	d := New(t.TempDir(), nil)
	mine := []byte("my own\n")
	if err := os.WriteFile(d.Path(GitIgnore), mine, 0o644); err != nil {
		t.Fatal(err)
	}
	created, err := d.EnsureGitIgnore()
	if err != nil || created {
		t.Fatalf("EnsureGitIgnore = %v, %v; want kept", created, err)
	}
	got, _ := os.ReadFile(d.Path(GitIgnore))
	if string(got) != string(mine) {
		t.Errorf(".gitignore rewritten: %q", got)
	}
}

func gitIn(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}
