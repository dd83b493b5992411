package engine

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestGitChangesMatchNameOnly: the files counted from numstat are exactly
// the ones `git diff --name-only` lists (the reference's count), renames
// and moves in and out of folders included.
func TestGitChangesMatchNameOnly(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	sh := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
			"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	write := func(name, content string) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	body := strings.Repeat("line of text\n", 20)
	for _, f := range []string{"a.txt", "src/b.txt", "src/deep/c.txt", "top.txt", "d/e.txt", "bin.dat", "edit.txt"} {
		write(f, body+f+"\n")
	}
	sh("init", "-q", ".")
	sh("add", "-A")
	sh("commit", "-q", "-m", "init")
	start := strings.TrimSpace(sh("rev-parse", "HEAD"))

	// Committed: a rename inside a folder and a move into a new folder.
	sh("mv", "src/b.txt", "src/b2.txt")
	if err := os.MkdirAll(filepath.Join(dir, "moved"), 0o755); err != nil {
		t.Fatal(err)
	}
	sh("mv", "top.txt", "moved/top.txt")
	sh("commit", "-q", "-m", "moves")
	// Staged: a move out of a folder, a binary change.
	sh("mv", "src/deep/c.txt", "c.txt")
	write("bin.dat", "\x00\x01binary")
	sh("add", "bin.dat")
	// Unstaged: an edit; untracked: a new file (never counted).
	write("edit.txt", "changed\n")
	write("untracked.txt", "new\n")

	want := map[string]bool{}
	for _, args := range [][]string{{"diff", "--name-only", start, "HEAD"}, {"diff", "--name-only"}, {"diff", "--name-only", "--cached"}} {
		for _, l := range strings.Split(sh(args...), "\n") {
			if l = strings.TrimSpace(l); l != "" {
				want[l] = true
			}
		}
	}
	n, numstat := git{dir: dir}.changes(context.Background(), start)
	var got []string
	for _, line := range strings.Split(numstat, "\n") {
		if p := numstatPath(line); p != "" && !slices.Contains(got, p) {
			got = append(got, p)
		}
	}
	slices.Sort(got)
	var wantList []string
	for p := range want {
		wantList = append(wantList, p)
	}
	slices.Sort(wantList)
	if !slices.Equal(got, wantList) || n != len(want) {
		t.Errorf("changes = %d files %q, want %d %q (git --name-only)\nnumstat:\n%s", n, got, len(want), wantList, numstat)
	}
	t.Logf("numstat:\n%s", numstat)
	if !strings.Contains(numstat, "=>") {
		t.Errorf("the test made no rename that numstat shows as one:\n%s", numstat)
	}
}

func TestNumstatPath(t *testing.T) {
	for _, tc := range []struct{ line, want string }{
		{"1\t2\tsrc/a.go", "src/a.go"},
		{"-\t-\tbin.dat", "bin.dat"},
		{"0\t0\told.txt => new.txt", "new.txt"},
		{"0\t0\tsrc/{b.txt => b2.txt}", "src/b2.txt"},
		{"0\t0\t{ => moved}/top.txt", "moved/top.txt"},
		{"0\t0\t{src/deep => }/c.txt", "c.txt"},
		{"0\t0\td/{x => }/y/f", "d/y/f"},
		{"", ""},
		{"garbage", ""},
	} {
		if got := numstatPath(tc.line); got != tc.want {
			t.Errorf("numstatPath(%q) = %q, want %q", tc.line, got, tc.want)
		}
	}
}
