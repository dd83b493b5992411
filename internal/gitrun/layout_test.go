//go:build unix

package gitrun

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// newRepo is a repository with one commit of src/app.txt, and a change of
// it in the working tree.
func newRepo(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := fromTemplate(t, "app", func(dir string) {
		if err := os.MkdirAll(filepath.Join(dir, "src"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "src", "app.txt"), []byte("a\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, a := range [][]string{{"init", "-q", "-b", "main", "."}, {"add", "-A"}, {"commit", "-q", "-m", "init"}} {
			cmd := exec.Command("git", append(append(noMaintenance, "-c", "user.name=t", "-c", "user.email=t@t"), a...)...)
			cmd.Dir = dir
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("git %v: %v\n%s", a, err, out)
			}
		}
	})
	if err := os.WriteFile(filepath.Join(dir, "src", "app.txt"), []byte("a\nb\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// shortTimeout sets Timeout to d for the test; Timeout is the package's, so
// a test that calls it is not parallel (Go runs those before the parallel ones).
func shortTimeout(t *testing.T, d time.Duration) {
	old := Timeout
	Timeout = func() time.Duration { return d }
	t.Cleanup(func() { Timeout = old })
}

// TestSpecialFileNotRead: a named pipe (or a link to a device) where git
// reads a file on every command stops the command before git runs, with
// a *StuckError naming it; a plain git would wait on it forever.
func TestSpecialFileNotRead(t *testing.T) {
	shortTimeout(t, time.Minute) // a pipe missed: git is stopped a minute later, and After says so
	for _, tc := range []struct {
		name string
		path string
		link string // a symbolic link to this instead of a named pipe
		conf string // core.excludesFile / core.attributesFile naming the pipe
	}{
		{name: "gitignore", path: ".gitignore"},
		{name: "gitattributes", path: ".gitattributes"},
		{name: "gitattributes to a device", path: ".gitattributes", link: "/dev/zero"},
		{name: "info/exclude", path: ".git/info/exclude"},
		{name: "config", path: ".git/config"},
		{name: "index", path: ".git/index"},
		{name: "HEAD's branch", path: ".git/refs/heads/main"},
		{name: "commondir", path: ".git/commondir"},
		{name: "excludesFile", path: "elsewhere.pipe", conf: "core.excludesFile"},
		{name: "attributesFile", path: "elsewhere.pipe", conf: "core.attributesFile"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := newRepo(t)
			if tc.conf != "" {
				cmd := exec.Command("git", "config", tc.conf, filepath.Join(dir, tc.path))
				cmd.Dir = dir
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("git config: %v\n%s", err, out)
				}
			}
			p := filepath.Join(dir, tc.path)
			os.Remove(p)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			var err error
			if tc.link != "" {
				err = os.Symlink(tc.link, p)
			} else {
				err = syscall.Mkfifo(p, 0o644)
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, args := range [][]string{{"status", "--porcelain"}, {"diff", "--numstat"}} {
				_, err := Run(context.Background(), dir, args...)
				var se *StuckError
				if !errors.As(err, &se) || se.Path != p || se.After != 0 {
					t.Fatalf("git %s: %v, want a *StuckError naming %s, before git ran", args[0], err, p)
				}
				if !strings.Contains(err.Error(), "git "+args[0]+" in "+dir+" not run: "+p+" is ") {
					t.Errorf("message %q", err)
				}
			}
		})
	}
}

// TestTimeoutFindsThePipe: a named pipe git reads only for some paths
// (src/.gitattributes, for a change under src/) is caught by the time
// limit: the command is stopped, the pipe is found and named, and the
// next command refuses at once.
func TestTimeoutFindsThePipe(t *testing.T) {
	shortTimeout(t, 300*time.Millisecond)
	dir := newRepo(t)
	p := filepath.Join(dir, "src", ".gitattributes")
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Run(context.Background(), dir, "diff", "--numstat")
	var se *StuckError
	if !errors.As(err, &se) || se.Path != p || se.After < 300*time.Millisecond {
		t.Fatalf("diff: %v, want a *StuckError after the limit naming %s", err, p)
	}
	_, err = Run(context.Background(), dir, "diff", "--numstat")
	if !errors.As(err, &se) || se.Path != p || se.After != 0 {
		t.Fatalf("second diff: %v, want a *StuckError before git ran naming %s", err, p)
	}
	os.Remove(p)
	shortTimeout(t, time.Minute) // a sound command must not meet the short limit under load
	if _, err := Run(context.Background(), dir, "diff", "--numstat"); err != nil {
		t.Fatalf("with the pipe gone: %v", err)
	}
}

// TestEndKillsTheGroup: when a command's context ends (its time limit, or
// the loop stopping) git's whole process group is killed, not git alone:
// a child it started (here an alias of the person's own, which runs a
// shell) does not outlive the command.
func TestEndKillsTheGroup(t *testing.T) {
	t.Parallel()
	dir := newRepo(t)
	pidFile := filepath.Join(t.TempDir(), "pid")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := Run(ctx, dir, "-c", "alias.hang=!sh -c 'echo $$ > "+pidFile+".tmp; mv "+pidFile+".tmp "+pidFile+"; exec sleep 1000'", "hang")
		done <- err
	}()
	var pid int
	for deadline := time.Now().Add(20 * time.Second); pid == 0; time.Sleep(10 * time.Millisecond) {
		if b, err := os.ReadFile(pidFile); err == nil {
			pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		}
		if time.Now().After(deadline) {
			t.Fatal("the alias never started")
		}
	}
	cancel()
	if err := <-done; err == nil {
		t.Fatal("the command ended well")
	}
	deadline := time.Now().Add(5 * time.Second)
	for syscall.Kill(pid, 0) == nil {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("git's child %d outlived the command", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestFilterMovedOutOfConfig: a clean filter the repository's config
// gains without .git/config's bytes changing in a way the remembered
// listing would miss — in config.worktree (with extensions.worktreeConfig),
// or in the config of a folder .git/commondir names — is emptied all the
// same; a plain git runs it, which shows the test can fail.
func TestFilterMovedOutOfConfig(t *testing.T) {
	t.Parallel()
	for _, how := range []string{"config.worktree", "commondir"} {
		t.Run(how, func(t *testing.T) {
			dir := newRepo(t)
			tmp := t.TempDir()
			marker := filepath.Join(tmp, "ran")
			filter := "sh -c 'echo ran >> " + marker + "; cat'"
			gitIn := func(args ...string) {
				t.Helper()
				cmd := exec.Command("git", args...)
				cmd.Dir = dir
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("git %v: %v\n%s", args, err, out)
				}
			}
			if err := os.WriteFile(filepath.Join(dir, ".gitattributes"), []byte("* filter=evil\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			if _, err := Run(ctx, dir, "status", "--porcelain"); err != nil { // "no filter" remembered
				t.Fatal(err)
			}
			switch how {
			case "config.worktree":
				gitIn("config", "extensions.worktreeConfig", "true")
				if _, err := Run(ctx, dir, "status", "--porcelain"); err != nil {
					t.Fatal(err)
				}
				gitIn("config", "--worktree", "filter.evil.clean", filter)
			case "commondir":
				common := filepath.Join(tmp, "common")
				gitIn("clone", "-q", "--bare", ".", common)
				cmd := exec.Command("git", "--git-dir="+common, "config", "filter.evil.clean", filter)
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("%v\n%s", err, out)
				}
				if err := os.WriteFile(filepath.Join(dir, ".git", "commondir"), []byte(common+"\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			future := time.Now().Add(time.Hour)
			os.Chtimes(filepath.Join(dir, "src", "app.txt"), future, future) // stat-dirty: diff cleans it
			if _, err := Run(ctx, dir, "diff", "--numstat"); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(marker); err == nil {
				t.Fatal("the repository's filter ran")
			}
			cmd := exec.Command("git", "diff", "--numstat")
			cmd.Dir = dir
			cmd.Run()
			if _, err := os.Stat(marker); err != nil {
				t.Fatal("the filter never ran for a plain git: the test proves nothing")
			}
		})
	}
}
