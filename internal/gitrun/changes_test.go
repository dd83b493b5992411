package gitrun

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestGitChangesMatchNameOnly: the files counted from numstat are exactly
// the ones `git diff --name-only` lists (the bash loop's count), renames
// and moves in and out of folders included.
func TestGitChangesMatchNameOnly(t *testing.T) {
	t.Parallel()
	dir, sh, write := testRepo(t)

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
	n, numstat, _, _ := Open(dir, "", nil, nil).Changes(context.Background(), start)
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
	t.Parallel()
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

// TestHeadMatchesRevParse: head, read from the repository's files where it
// can, is always what `git rev-parse HEAD` says, and the fast path really
// is taken for the plain layouts.
func TestHeadMatchesRevParse(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	env := append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
	gitIn := func(t *testing.T, dir string, args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append(noMaintenance, args...)...)
		cmd.Dir, cmd.Env = dir, env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	newRepo := func(t *testing.T, commits int) string {
		t.Helper()
		return fromTemplate(t, fmt.Sprintf("head-%d", commits), func(dir string) {
			gitIn(t, dir, "init", "-q", "-b", "main", ".")
			for i := range commits {
				if err := os.WriteFile(filepath.Join(dir, "f.txt"), []byte(strings.Repeat("x", i+1)), 0o644); err != nil {
					t.Fatal(err)
				}
				gitIn(t, dir, "add", "-A")
				gitIn(t, dir, "commit", "-q", "-m", "c")
			}
		})
	}
	cases := []struct {
		name  string
		setup func(t *testing.T) (dir string)
		fast  bool // readHead answers without git
	}{
		{"loose branch", func(t *testing.T) string { return newRepo(t, 2) }, true},
		{"packed branch", func(t *testing.T) string {
			dir := newRepo(t, 2)
			gitIn(t, dir, "pack-refs", "--all")
			return dir
		}, true},
		{"packed, then a newer loose commit", func(t *testing.T) string {
			dir := newRepo(t, 1)
			gitIn(t, dir, "pack-refs", "--all")
			gitIn(t, dir, "commit", "-q", "--allow-empty", "-m", "later")
			return dir
		}, true},
		{"detached HEAD", func(t *testing.T) string {
			dir := newRepo(t, 2)
			gitIn(t, dir, "checkout", "-q", "--detach", "HEAD~1")
			return dir
		}, true},
		{"unborn branch", func(t *testing.T) string { return newRepo(t, 0) }, false},
		{"linked worktree", func(t *testing.T) string {
			dir := newRepo(t, 1)
			wt := filepath.Join(t.TempDir(), "wt")
			gitIn(t, dir, "worktree", "add", "-q", "-b", "side", wt)
			gitIn(t, wt, "commit", "-q", "--allow-empty", "-m", "on side")
			return wt
		}, true},
		{"linked worktree, its branch packed in the common folder", func(t *testing.T) string {
			dir := newRepo(t, 1)
			wt := filepath.Join(t.TempDir(), "wt")
			gitIn(t, dir, "worktree", "add", "-q", "-b", "side", wt)
			gitIn(t, wt, "commit", "-q", "--allow-empty", "-m", "on side")
			gitIn(t, dir, "pack-refs", "--all")
			return wt
		}, true},
		{"linked worktree, detached", func(t *testing.T) string {
			dir := newRepo(t, 2)
			wt := filepath.Join(t.TempDir(), "wt")
			gitIn(t, dir, "worktree", "add", "-q", "--detach", wt, "HEAD~1")
			return wt
		}, true},
		{"project in a subfolder", func(t *testing.T) string {
			dir := newRepo(t, 1)
			sub := filepath.Join(dir, "sub")
			if err := os.Mkdir(sub, 0o755); err != nil {
				t.Fatal(err)
			}
			return sub
		}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := tc.setup(t)
			want := ""
			cmd := exec.Command("git", "rev-parse", "HEAD")
			cmd.Dir, cmd.Env = dir, env
			if out, err := cmd.Output(); err == nil {
				want = strings.TrimSpace(string(out))
			}
			if got := Open(dir, "", nil, nil).Head(context.Background()); got != want {
				t.Errorf("head = %q, want %q (git rev-parse HEAD)", got, want)
			}
			if _, ok := open(dir, "", nil).readHead(); ok != tc.fast {
				t.Errorf("readHead answered = %v, want %v", ok, tc.fast)
			}
		})
	}
}

// testRepo is a scratch folder for git tests: sh runs git there (with no
// user or system configuration) and returns its output, trimmed, except
// that sh("init", "-q", ".") copies what that command writes (initCopy);
// write creates a file with its folders.
func testRepo(t *testing.T) (dir string, sh func(args ...string) string, write func(name, content string)) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir = t.TempDir()
	env := append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
	sh = func(args ...string) string {
		t.Helper()
		if slices.Equal(args, []string{"init", "-q", "."}) {
			initCopy(t, dir, env)
			return ""
		}
		cmd := exec.Command("git", append(noMaintenance, args...)...)
		cmd.Dir, cmd.Env = dir, env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	write = func(name, content string) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir, sh, write
}
