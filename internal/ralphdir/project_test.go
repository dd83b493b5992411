package ralphdir

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The project reader's links rule for the prompt file: under .ralph/ no
// link is followed; a prompt file the repository's .ralphrc names must be
// inside the project, with no link in its place; one the person names is
// read where it points.
func TestProjectPromptLinks(t *testing.T) {
	t.Parallel()
	proj := t.TempDir()
	outside := filepath.Join(t.TempDir(), "secret.md")
	write := func(p, s string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(outside, "secret\n")
	write(filepath.Join(proj, ".ralph", "PROMPT.md"), "prompt\n")
	write(filepath.Join(proj, "docs", "prompt.md"), "docs prompt\n")
	for _, l := range []string{filepath.Join(proj, ".ralph", "LINK.md"), filepath.Join(proj, "link.md")} {
		if err := os.Symlink(outside, l); err != nil {
			t.Fatal(err)
		}
	}
	dir := New(filepath.Join(proj, ".ralph"), nil)
	cases := []struct {
		file     string
		fromRepo bool
		want     string // "" : refused
	}{
		{".ralph/PROMPT.md", true, "prompt\n"},
		{".ralph/LINK.md", false, ""},
		{"docs/prompt.md", true, "docs prompt\n"},
		{"link.md", true, ""},
		{outside, true, ""},
		{"link.md", false, "secret\n"},
		{outside, false, "secret\n"},
	}
	for _, tc := range cases {
		p := Project{Dir: dir, ProjectDir: proj, PromptFile: tc.file, PromptFromRepo: tc.fromRepo}
		got, err := p.Prompt()
		if tc.want == "" {
			if err == nil {
				t.Errorf("%s (from the repository %v): read %q, want a refusal", tc.file, tc.fromRepo, got)
			}
			continue
		}
		if err != nil || string(got) != tc.want || !p.HasPrompt() {
			t.Errorf("%s (from the repository %v): %q, %v; want %q", tc.file, tc.fromRepo, got, err, tc.want)
		}
	}
	if p := (Project{Dir: dir, ProjectDir: proj, PromptFile: "none.md"}); p.HasPrompt() {
		t.Error("HasPrompt for a missing file")
	} else if _, err := p.Prompt(); err == nil || !strings.Contains(err.Error(), "none.md") {
		t.Errorf("missing prompt: %v", err)
	}
}
