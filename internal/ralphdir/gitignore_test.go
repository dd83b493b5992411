package ralphdir

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestGitIgnoreKeepsOnlyThePersonsFiles: git, reading the .ralph/.gitignore
// the loop writes, ignores every path LoopOwned calls the loop's own (the
// .gitignore itself aside, which stays tracked), every other file directly
// in .ralph/ that is neither Markdown, a script nor .ralphrc (a state file
// a later version adds, a temp file of bmalph's), and none of the files a
// person keeps: the prompt, the plan, specs/, .ralphrc, bmalph's scripts,
// lib/ and drivers/.
func TestGitIgnoreKeepsOnlyThePersonsFiles(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	top := t.TempDir()
	gitIn(t, top, "init", "-q", ".")
	d := New(filepath.Join(top, ".ralph"), nil)
	if err := os.MkdirAll(d.Root(), 0o755); err != nil {
		t.Fatal(err)
	}
	if change, err := d.EnsureGitIgnore(); err != nil || change != IgnoreAdded {
		t.Fatalf("EnsureGitIgnore = %v, %v; want added", change, err)
	}
	owned := []string{
		"live.log.1", "live.log.5", "logs/ralph.log", "logs/.ralph_loop.lock", "logs/metrics.jsonl",
		"logs/claude_output_2026-01-01_10-00-00-000_1.log", ".status.json.tmp-123",
		"status.json.qg_tmp", ".response_analysis.tmp", "@fix_plan.md.collapse_tmp",
		".ralph_session.corrupt-20260101-100000", ".fallback_session_id.codex",
		".fallback_session_id.claude-code.corrupt-20260101-100000", "..fallback_session_id.codex.tmp-42",
		".tmp-9", ".@fix_plan.md.tmp-77", ".PROMPT.md.tmp-3",
	}
	for n := range loopOwnedNames {
		owned = append(owned, n, n+".1", n+".corrupt-20260101-100000", n+".tmp", "."+n+".tmp-5")
	}
	other := []string{"live.log.6", "src.tmp", "status.jsonx", "xstatus.json", ".new_state_of_a_later_version",
		"PROMPT.md.1", "@fix_plan.md.a1b2c3.tmp"}
	kept := []string{
		"@fix_plan.md", "fix_plan.md", "PROMPT.md", "@AGENT.md", "REVIEW_PROMPT.md", "ALT_PROMPT.md", ".ralphrc",
		"specs/a.md", "specs/status.json", "specs/.call_count", "docs/generated/api.md", "SPECS_INDEX.md",
		"SPECS_CHANGELOG.md", "PROJECT_CONTEXT.md", "RALPH-REFERENCE.md", "ralph_loop.sh", "ralph_import.sh",
		"ralph_monitor.sh", "lib/circuit_breaker.sh", "drivers/claude-code.sh", "drivers/DRIVER_INTERFACE.md",
		"bin/ralph_loop", ".gitignore",
	}
	// One git for all the paths: it prints those it ignores.
	all := slices.Concat(owned, other, kept)
	cmd := exec.Command("git", "check-ignore", "--no-index", "--stdin")
	cmd.Dir = top
	cmd.Stdin = strings.NewReader(".ralph/" + strings.Join(all, "\n.ralph/") + "\n")
	out, err := cmd.Output()
	if ee, ok := err.(*exec.ExitError); err != nil && (!ok || ee.ExitCode() != 1) {
		t.Fatalf("git check-ignore: %v", err)
	}
	ignoredSet := map[string]bool{}
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		ignoredSet[strings.TrimPrefix(l, ".ralph/")] = true
	}
	ignored := func(rel string) bool { return ignoredSet[rel] }
	for _, rel := range owned {
		if !LoopOwned(rel) {
			t.Fatalf("test list: LoopOwned(%q) = false", rel)
		}
		if !ignored(rel) {
			t.Errorf("git does not ignore the loop's .ralph/%s", rel)
		}
	}
	for _, rel := range other {
		if !ignored(rel) {
			t.Errorf("git does not ignore .ralph/%s", rel)
		}
	}
	for _, rel := range kept {
		if rel != GitIgnore && LoopOwned(rel) {
			t.Fatalf("test list: LoopOwned(%q) = true", rel)
		}
		if ignored(rel) {
			t.Errorf("git ignores .ralph/%s, a file the person keeps", rel)
		}
	}
	got, _ := os.ReadFile(d.Path(GitIgnore))
	t.Logf(".ralph/.gitignore is %d lines", bytes.Count(got, []byte("\n")))
}

// TestEnsureGitIgnoreKeepsExisting: a .gitignore that is there and is not
// an earlier version's, unchanged, is never rewritten: a person's own, an
// earlier version's they edited (a line added, a line taken out), the
// current one, a link.
func TestEnsureGitIgnoreKeepsExisting(t *testing.T) {
	earlier := earlierTexts(t)
	edited := slices.Concat(earlier[1], []byte("/my-notes.txt\n"))
	trimmed := bytes.Replace(earlier[0], []byte("/status.json\n"), nil, 1)
	for name, mine := range map[string][]byte{
		"own": []byte("my own\n"), "edited": edited, "trimmed": trimmed, "current": gitIgnoreContent, "empty": {},
	} {
		t.Run(name, func(t *testing.T) {
			d := New(t.TempDir(), nil)
			if err := os.WriteFile(d.Path(GitIgnore), mine, 0o644); err != nil {
				t.Fatal(err)
			}
			change, err := d.EnsureGitIgnore()
			if err != nil || change != IgnoreKept {
				t.Fatalf("EnsureGitIgnore = %v, %v; want kept", change, err)
			}
			if got, _ := os.ReadFile(d.Path(GitIgnore)); !bytes.Equal(got, mine) {
				t.Errorf(".gitignore rewritten: %q", got)
			}
		})
	}
	t.Run("link", func(t *testing.T) {
		d := New(t.TempDir(), nil)
		target := filepath.Join(t.TempDir(), "elsewhere")
		if err := os.WriteFile(target, earlier[0], 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, d.Path(GitIgnore)); err != nil {
			t.Skip(err)
		}
		if change, err := d.EnsureGitIgnore(); err != nil || change != IgnoreKept {
			t.Fatalf("EnsureGitIgnore = %v, %v; want kept", change, err)
		}
		if got, _ := os.ReadFile(target); !bytes.Equal(got, earlier[0]) {
			t.Error("the link's target was rewritten")
		}
	})
}

// TestEnsureGitIgnoreUpdatesEarlier: the long .gitignore an earlier
// version wrote (one pattern per state file), unchanged, is replaced by
// the short one, checked out with CRLF line ends too; a second start
// leaves the short one as it is.
func TestEnsureGitIgnoreUpdatesEarlier(t *testing.T) {
	for i, text := range earlierTexts(t) {
		for _, crlf := range []bool{false, true} {
			t.Run(fmt.Sprintf("%d-crlf=%v", i, crlf), func(t *testing.T) {
				d := New(t.TempDir(), nil)
				if crlf {
					text = bytes.ReplaceAll(text, []byte("\n"), []byte("\r\n"))
				}
				if err := os.WriteFile(d.Path(GitIgnore), text, 0o644); err != nil {
					t.Fatal(err)
				}
				if change, err := d.EnsureGitIgnore(); err != nil || change != IgnoreUpdated {
					t.Fatalf("EnsureGitIgnore = %v, %v; want updated", change, err)
				}
				if got, _ := os.ReadFile(d.Path(GitIgnore)); !bytes.Equal(got, gitIgnoreContent) {
					t.Errorf(".gitignore = %q, want the current text", got)
				}
				if change, err := d.EnsureGitIgnore(); err != nil || change != IgnoreKept {
					t.Fatalf("second EnsureGitIgnore = %v, %v; want kept", change, err)
				}
			})
		}
	}
}

// earlierTexts are the .ralph/.gitignore files earlier versions wrote, as
// kept in testdata/, each recognised as one.
func earlierTexts(t *testing.T) [][]byte {
	t.Helper()
	names, err := filepath.Glob(filepath.Join("testdata", "gitignore-*"))
	if err != nil || len(names) != len(earlierGitIgnores) {
		t.Fatalf("testdata has %d earlier .gitignore files (%v), earlierGitIgnores %d", len(names), err, len(earlierGitIgnores))
	}
	var texts [][]byte
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		if !earlierGitIgnore(b) || !strings.HasPrefix(string(b), "# Written by ralph_loop") {
			t.Fatalf("%s is not recognised as an earlier version's", n)
		}
		texts = append(texts, b)
	}
	return texts
}

func gitIn(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}
