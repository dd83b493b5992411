//go:build unix

package swarm

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestMain lets the test binary stand in for a worker's loop: a fake
// that works the plan in its working directory the way the plan's
// epic headings say (see fakeLoop).
func TestMain(m *testing.M) {
	if os.Getenv("SWARM_FAKE_LOOP") == "1" {
		os.Exit(fakeLoop())
	}
	// The swarm's own git commands and the fake loops' commit as "t",
	// without the machine's git configuration. The global configuration
	// is one line, as a person's may be: no `git maintenance run --auto`
	// after each commit and merge (a process with nothing to do here).
	global, err := os.CreateTemp("", "swarm-gitconfig-")
	if err == nil {
		_, err = global.WriteString("[maintenance]\n\tauto = false\n")
		global.Close()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv("GIT_CONFIG_GLOBAL", global.Name())
	os.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	for _, k := range []string{"GIT_AUTHOR", "GIT_COMMITTER"} {
		os.Setenv(k+"_NAME", "t")
		os.Setenv(k+"_EMAIL", "t@example.com")
	}
	code := m.Run()
	os.Remove(global.Name())
	os.Exit(code)
}

var slugRe = regexp.MustCompile(`[^a-z0-9]+`)

// fakeLoop ticks every open task of ./.ralph/@fix_plan.md and, per task,
// writes what its epic's heading asks for:
//
//	"same"  overwrites same.txt's one line (two such workers conflict)
//	"bad"   creates bad.txt (the tests' gate fails on it)
//	"stop"  exits 4 the first time (as --max-loops does), writes stop.txt the next
//	"hang"  writes its pid to $FAKE_PIDS/<dir>.pid and blocks
//	other   appends the task to <epic>.txt
//
// A handed-back task to make the gates pass removes bad.txt when
// FAKE_FIX=1; a merge under way is resolved (both sides kept, committed)
// when FAKE_RESOLVE=1.
func fakeLoop() int {
	p := filepath.Join(".ralph", "@fix_plan.md")
	b, err := os.ReadFile(p)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if os.Getenv("FAKE_RESOLVE") == "1" {
		out, _ := exec.Command("git", "diff", "--name-only", "--diff-filter=U").Output()
		for _, f := range strings.Fields(string(out)) {
			os.WriteFile(f, []byte("resolved\n"), 0o644)
			exec.Command("git", "add", f).Run()
		}
		if len(out) > 0 {
			exec.Command("git", "commit", "-q", "--no-edit").Run()
		}
	}
	lines := strings.Split(string(b), "\n")
	epic := ""
	for i, l := range lines {
		if strings.HasPrefix(l, "#") {
			epic = strings.ToLower(strings.TrimLeft(l, "# "))
			continue
		}
		if !strings.HasPrefix(l, "- [ ] ") {
			continue
		}
		task := strings.TrimPrefix(l, "- [ ] ")
		switch {
		case strings.Contains(task, "Make the quality gates pass"):
			if os.Getenv("FAKE_FIX") == "1" {
				os.Remove("bad.txt")
			}
		case strings.Contains(task, "Resolve the merge"):
		case strings.Contains(epic, "stop"):
			wd, _ := os.Getwd()
			mark := filepath.Join(os.Getenv("FAKE_PIDS"), "stopped-"+filepath.Base(wd))
			if _, err := os.Stat(mark); err != nil {
				os.WriteFile(mark, nil, 0o644)
				return 4 // as --max-loops ends a loop, the task still open
			}
			os.WriteFile("stop.txt", []byte(task+"\n"), 0o644)
		case strings.Contains(epic, "hang"):
			wd, _ := os.Getwd()
			pid := filepath.Join(os.Getenv("FAKE_PIDS"), filepath.Base(wd)+".pid")
			os.WriteFile(pid+".tmp", []byte(fmt.Sprint(os.Getpid())), 0o644)
			os.Rename(pid+".tmp", pid) // whole, for the test that waits for it
			time.Sleep(time.Hour)
		case strings.Contains(epic, "same"):
			os.WriteFile("same.txt", []byte(task+"\n"), 0o644)
		case strings.Contains(epic, "bad"):
			os.WriteFile("bad.txt", []byte("bad\n"), 0o644)
		default:
			f, _ := os.OpenFile(slugRe.ReplaceAllString(epic, "-")+".txt", os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
			fmt.Fprintln(f, task)
			f.Close()
		}
		lines[i] = "- [x] " + task
	}
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		return 1
	}
	return 0
}

// project makes a git repository on branch main holding plan as its
// .ralph/@fix_plan.md (and same.txt), committed.
func project(t *testing.T, plan string) string {
	t.Helper()
	t.Parallel()
	return projectIn(t, t.TempDir(), plan)
}

// projectIn is project in dir, for a test that cannot run in parallel.
func projectIn(t *testing.T, dir, plan string) string {
	t.Helper()
	must(t, os.MkdirAll(filepath.Join(dir, ".ralph"), 0o755))
	must(t, os.WriteFile(filepath.Join(dir, ".ralph", "@fix_plan.md"), []byte(plan), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, ".ralph", "PROMPT.md"), []byte("work\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "same.txt"), []byte("base\n"), 0o644))
	run(t, dir, "git", "init", "-q", "-b", "main")
	run(t, dir, "git", "add", "-A")
	run(t, dir, "git", "commit", "-q", "-m", "start")
	return dir
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func run(t *testing.T, dir string, argv ...string) string {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %v\n%s", argv, err, out)
	}
	return strings.TrimSpace(string(out))
}

// swarmOpts are Options for a test: the fake loop as every worker's
// loop, no stagger, the gate "bad.txt must not exist".
func swarmOpts(t *testing.T, root string, env ...string) Options {
	exe, err := os.Executable()
	must(t, err)
	var log strings.Builder
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("queue log:\n%s", log.String())
		}
	})
	return Options{
		Root: root, Workers: 2, Exe: exe,
		Env:     append(os.Environ(), append([]string{"SWARM_FAKE_LOOP=1"}, env...)...),
		Gates:   gatesConfig(),
		Retries: 1,
		Grace:   2 * time.Second,
		Poll:    10 * time.Millisecond,
		Log:     &log,
	}
}

func runSwarm(t *testing.T, o Options) Report {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	r, err := Run(ctx, o)
	must(t, err)
	return r
}
