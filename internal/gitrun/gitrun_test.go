package gitrun

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestRefusal: git 2.39's own text for a repository another user owns
// becomes one line with the safe.directory command; other errors do not.
func TestRefusal(t *testing.T) {
	t.Parallel()
	msg := "fatal: detected dubious ownership in repository at '/srv/proj'\n" +
		"To add an exception for this directory, call:\n\n" +
		"\tgit config --global --add safe.directory /srv/proj"
	got, ok := Refusal(msg)
	want := "git refuses to work in this repository: detected dubious ownership in repository at '/srv/proj'; " +
		"To add an exception for this directory, call: git config --global --add safe.directory /srv/proj"
	if !ok || got != want {
		t.Errorf("Refusal = %q, %v\nwant %q", got, ok, want)
	}
	if _, ok := Refusal("fatal: not a git repository (or any of the parent directories): .git"); ok {
		t.Error("a missing repository taken for a refusal")
	}
}

// TestParseConfig: only the filters and files of the repository's own
// scopes are named, each once, whatever characters the name holds.
func TestParseConfig(t *testing.T) {
	t.Parallel()
	out := "local\x00filter.evil.clean\nsh x\x00local\x00filter.evil.smudge\nsh y\x00" +
		"global\x00filter.lfs.clean\ngit-lfs clean -- %f\x00worktree\x00filter.a=b.c.process\nz\x00" +
		"command\x00filter.mine.clean\ncat\x00system\x00filter.sys.clean\ncat\x00"
	out += "local\x00merge.ours.driver\nsh z\x00local\x00merge.conflictstyle\ndiff3\x00global\x00merge.mine.driver\ncat\x00"
	out += "local\x00core.excludesfile\nignore.txt\x00worktree\x00core.attributesfile\n~/attrs\x00global\x00core.excludesfile\n/mine\x00"
	got, includes := parseConfig([]byte(out), "/proj", "/home/me")
	if want := []string{"filter.evil", "filter.a=b.c", "merge.ours"}; !slices.Equal(got.names, want) || includes {
		t.Errorf("parseConfig names = %q, %v; want %q, false", got.names, includes, want)
	}
	if want := []string{"/proj/ignore.txt", "/home/me/attrs"}; !slices.Equal(got.files, want) {
		t.Errorf("parseConfig files = %q, want %q", got.files, want)
	}
	if _, includes := parseConfig([]byte("global\x00include.path\n~/x\x00"), "/proj", ""); includes {
		t.Error("the person's own include taken for the repository's")
	}
	if _, includes := parseConfig([]byte("local\x00includeif.gitdir:/x/.path\n../y\x00"), "/proj", ""); !includes {
		t.Error("the repository's include not seen")
	}
}

// TestFilterEnv: the overrides follow the person's own GIT_CONFIG_COUNT
// entries and keep each name whole.
func TestFilterEnv(t *testing.T) {
	t.Parallel()
	env := filterEnv([]string{"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=user.name", "GIT_CONFIG_VALUE_0=me"}, []string{"filter.a=b", "merge.m"})
	joined := strings.Join(env, "\n")
	for _, want := range []string{"GIT_CONFIG_KEY_1=filter.a=b.clean", "GIT_CONFIG_VALUE_1=", "GIT_CONFIG_KEY_4=filter.a=b.required", "GIT_CONFIG_VALUE_4=false",
		"GIT_CONFIG_KEY_5=merge.m.driver", "GIT_CONFIG_VALUE_5=false", "GIT_PAGER=cat"} {
		if !slices.Contains(env, want) {
			t.Errorf("filterEnv lacks %q:\n%s", want, joined)
		}
	}
	if env[len(env)-1] != "GIT_CONFIG_COUNT=6" {
		t.Errorf("filterEnv ends with %q, want GIT_CONFIG_COUNT=6", env[len(env)-1])
	}
}

// TestFilterAddedBetweenCommands: a filter the repository's configuration
// gains between two commands (in .git/config, or in a file it includes,
// which the remembered names cannot see change) is emptied for the second;
// the filter works for a plain git, which shows the test can fail.
func TestFilterAddedBetweenCommands(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir, tmp := t.TempDir(), t.TempDir()
	marker := filepath.Join(tmp, "ran")
	script := filepath.Join(tmp, "filter.sh")
	if err := os.WriteFile(script, []byte("echo \"$1\" >> "+marker+"\ncat\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append(append(noMaintenance, "-c", "user.name=t", "-c", "user.email=t@t"), args...)...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	write := func(name, content string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a.txt", "a\n")
	write(".gitattributes", "* filter=one\n*.txt filter=two\n")
	git("init", "-q", ".")
	git("add", "-A")
	git("commit", "-q", "-m", "init")
	stamp := time.Now()
	dirty := func() { // a stat-dirty file makes diff run the clean filter
		write("a.txt", "a\nb\n")
		stamp = stamp.Add(time.Minute)
		os.Chtimes(filepath.Join(dir, "a.txt"), stamp, stamp)
	}
	ran := func() bool { _, err := os.Stat(marker); return err == nil }
	ctx := context.Background()

	dirty()
	if _, err := Run(ctx, dir, "diff", "--numstat"); err != nil {
		t.Fatal(err)
	}
	git("config", "filter.one.clean", "sh "+script+" one")
	if _, err := Run(ctx, dir, "diff", "--numstat"); err != nil || ran() {
		t.Fatalf("a filter added to .git/config ran (%v)", err)
	}
	write("extra.cfg", "")
	git("config", "include.path", "../extra.cfg")
	if _, err := Run(ctx, dir, "status", "--porcelain"); err != nil || ran() {
		t.Fatalf("ran after include (%v)", err)
	}
	write("extra.cfg", "[filter \"two\"]\n\tclean = sh "+script+" two\n")
	dirty()
	if _, err := Run(ctx, dir, "diff", "--numstat"); err != nil || ran() {
		t.Fatalf("a filter added to an included file ran (%v)", err)
	}
	dirty()
	cmd := exec.Command("git", "diff", "--numstat")
	cmd.Dir = dir
	cmd.Run()
	if !ran() {
		t.Fatal("the filters never ran for a plain git: the test proves nothing")
	}
}

// TestRepoMergeDriverNeverRuns: a merge driver the repository's own
// .git/config names (picked by its .gitattributes) does not run in the
// loop's merges (--swarm's queue); the file is left in conflict instead.
// A plain git runs it, which shows the test can fail.
func TestRepoMergeDriverNeverRuns(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir, tmp := t.TempDir(), t.TempDir()
	marker := filepath.Join(tmp, "ran")
	git := func(args ...string) error {
		cmd := exec.Command("git", append(append(noMaintenance, "-c", "user.name=t", "-c", "user.email=t@t"), args...)...)
		cmd.Dir = dir
		return cmd.Run()
	}
	must := func(args ...string) {
		t.Helper()
		if err := git(args...); err != nil {
			t.Fatalf("git %v: %v", args, err)
		}
	}
	write := func(name, content string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	must("init", "-q", "-b", "main", ".")
	write(".gitattributes", "*.txt merge=evil\n")
	write("a.txt", "one\n")
	must("add", "-A")
	must("commit", "-q", "-m", "init")
	must("config", "merge.evil.driver", "touch "+marker+"; cp %B %A")
	must("checkout", "-q", "-b", "side")
	write("a.txt", "side\n")
	must("commit", "-q", "-am", "side")
	must("checkout", "-q", "main")
	write("a.txt", "main\n")
	must("commit", "-q", "-am", "main")

	ctx := context.Background()
	if _, err := Run(ctx, dir, "-c", "user.name=t", "-c", "user.email=t@t", "merge", "--no-ff", "--no-commit", "-q", "side"); err == nil {
		t.Error("the merge succeeded: want the file left in conflict")
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the repository's merge driver ran")
	}
	if out, _ := Run(ctx, dir, "diff", "--name-only", "--diff-filter=U"); out != "a.txt" {
		t.Errorf("unmerged paths = %q, want a.txt", out)
	}
	must("merge", "--abort")
	if err := git("merge", "--no-ff", "--no-commit", "-q", "side"); err != nil {
		t.Fatalf("plain git merge: %v", err)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Fatal("the driver never ran for a plain git: the test proves nothing")
	}
}

// TestNoFiltersIsRemembered: a repository whose configuration names no
// filter, merge driver or include (git config --get-regexp then exits 1)
// is asked once, not before every command, until .git/config changes.
func TestNoFiltersIsRemembered(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	ctx := context.Background()
	if _, err := Run(ctx, dir, "status", "--porcelain"); err != nil {
		t.Fatal(err)
	}
	key, ok := configKey(locate(dir, os.Environ()), dir, os.Environ())
	filterCache.Lock()
	c, cached := filterCache.m[dir]
	filterCache.Unlock()
	if !ok || !cached || c.key != key || len(c.conf.names) != 0 {
		t.Fatalf("after one command: cached %v (%+v), want an empty answer for the current config", cached, c)
	}
	cmd := exec.Command("git", "config", "filter.x.clean", "cat")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git config: %v\n%s", err, out)
	}
	if got, _ := repoConfig(ctx, dir, locate(dir, os.Environ()), os.Environ()); !slices.Equal(got.names, []string{"filter.x"}) {
		t.Fatalf("after a filter was added: %v, want [filter.x]", got)
	}
}

// TestWorktreeConfigRemembered: in a linked worktree (what --swarm's
// agents work in) the listing of the repository's configuration is asked
// once, not before every command, and asked again when the common
// config, the worktree's config.worktree or the worktree's pointer to
// its git folder changes; a configuration with an include is never
// remembered.
func TestWorktreeConfigRemembered(t *testing.T) {
	runs := countingGit(t)
	dir, sh, write := testRepo(t)
	write("a.txt", "a\n")
	sh("init", "-q", ".")
	sh("add", "-A")
	sh("commit", "-q", "-m", "init")
	wt := filepath.Join(t.TempDir(), "wt")
	sh("worktree", "add", "-q", wt)
	inWT := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = wt
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	ctx := context.Background()
	step := func(name string, wantListings int, wantNames ...string) {
		t.Helper()
		for range 2 {
			if _, err := Run(ctx, wt, "status", "--porcelain"); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
		}
		if n := runs("--show-scope"); n != wantListings {
			t.Errorf("%s: the configuration was listed %d times in all, want %d", name, n, wantListings)
		}
		got, _ := repoConfig(ctx, wt, locate(wt, os.Environ()), os.Environ())
		if !slices.Equal(got.names, wantNames) {
			t.Errorf("%s: filters %v, want %v", name, got.names, wantNames)
		}
	}
	step("two commands", 1)
	inWT("config", "filter.x.clean", "cat") // the common folder's config
	step("a filter in the common config", 2, "filter.x")
	inWT("config", "extensions.worktreeConfig", "true")
	inWT("config", "--worktree", "filter.y.clean", "cat")
	step("a filter in config.worktree", 3, "filter.x", "filter.y")
	write("extra.conf", "[filter \"z\"]\n\tclean = cat\n")
	inWT("config", "include.path", filepath.Join(dir, "extra.conf"))
	step("an include", 5, "filter.x", "filter.z", "filter.y") // both commands list it
}
