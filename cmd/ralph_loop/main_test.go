//go:build unix

package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/ralphloop/ralph_loop/internal/fakeagent"
)

var update = getenvBool("UPDATE_SCRIPTS")

func getenvBool(k string) bool { v, _ := strconv.ParseBool(os.Getenv(k)); return v }

// extraCmds lets other _test.go files add script commands from init().
var extraCmds = map[string]func(ts *testscript.TestScript, neg bool, args []string){}

// conditions lets other _test.go files add script conditions ([name])
// from init().
var conditions = map[string]func() bool{}

// mainCmds lets other _test.go files add programs the test binary doubles
// as, from init().
var mainCmds = map[string]func(){}

// fakeCLIs are the agent CLI names the fake agent answers to.
var fakeCLIs = []string{"claude", "codex", "cursor-agent", "copilot", "opencode", "my-agent"}

// TestMain makes the test binary double as ralph_loop and as every agent
// CLI (a scriptable fake), so testscript scenarios run the real program.
// Ahead of it on PATH come ralph_loop built as it ships (with -race when
// the tests are), the fake agent built as a program of its own
// (cmd/fakeagent, linked under each CLI's name) and the fake trackers
// (cmd/faketracker, as bd and gh), which start in 16 ms, 7 ms and about
// as little of CPU instead of the test binary's 21 ms. Without go, and for
// ralph_loop under -cover, the test binary answers.
func TestMain(m *testing.M) {
	fake := func() { fakeagent.Main() }
	cmds := map[string]func(){"ralph_loop": func() { main() }}
	for _, name := range fakeCLIs {
		cmds[name] = fake
	}
	for name, f := range mainCmds {
		cmds[name] = f
	}
	if cmds[filepath.Base(os.Args[0])] != nil { // a command's run
		testscript.Main(m, cmds)
	}
	moreParallel()
	testscript.Main(builtFirst{m}, cmds)
}

// builtFirst runs the tests with the built programs ahead of testscript's
// copies of the test binary on PATH.
type builtFirst struct{ m *testing.M }

func (f builtFirst) Run() int {
	dir, err := os.MkdirTemp("", "ralph-test-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	var built sync.WaitGroup
	built.Go(func() {
		if err := buildFakeAgent(dir); err != nil {
			fmt.Fprintf(os.Stderr, "the fake agent is the test binary: %v\n", err)
		}
	})
	built.Go(func() {
		if err := buildFakeTracker(dir); err != nil {
			fmt.Fprintf(os.Stderr, "the fake trackers are the test binary: %v\n", err)
		}
	})
	if testing.CoverMode() == "" {
		built.Go(func() {
			if err := goBuild(filepath.Join(dir, "ralph_loop"), "./cmd/ralph_loop", raceEnabled); err != nil {
				fmt.Fprintf(os.Stderr, "ralph_loop is the test binary: %v\n", err)
			}
		})
	}
	built.Wait()
	os.Setenv("PATH", dir+string(filepath.ListSeparator)+os.Getenv("PATH"))
	defer closeBrowser()
	defer removeTemplates()
	return f.m.Run()
}

// buildFakeAgent builds cmd/fakeagent into dir and links it there under
// every fake CLI's name.
func buildFakeAgent(dir string) error {
	bin := filepath.Join(dir, "fakeagent")
	if err := goBuild(bin, "./internal/fakeagent/cmd/fakeagent", false); err != nil {
		return err
	}
	for _, name := range fakeCLIs {
		if err := os.Symlink(bin, filepath.Join(dir, name)); err != nil {
			return err
		}
	}
	return nil
}

// buildFakeTracker builds cmd/faketracker into dir and links it there as
// bd and gh (a start of the test binary as a tracker costs about twice
// that program's CPU).
func buildFakeTracker(dir string) error {
	bin := filepath.Join(dir, "faketracker")
	if err := goBuild(bin, "./internal/faketracker/cmd/faketracker", false); err != nil {
		return err
	}
	for _, name := range []string{"bd", "gh"} {
		if err := os.Symlink(bin, filepath.Join(dir, name)); err != nil {
			return err
		}
	}
	return nil
}

// goBuild builds the module's package pkg into bin, static as a release
// is (CGO_ENABLED=0, no dynamic loader to start), or with -race. It asks
// go run for the program and copies it (go run -exec cp PKG BIN): go run
// keeps what it links in the build cache, so an unchanged program is not
// linked again on the next run (go build -o links every time).
func goBuild(bin, pkg string, race bool) error {
	args := []string{"run", "-exec", "cp"}
	if race {
		args = append(args, "-race")
	}
	cmd := exec.Command(goTool(), append(args, pkg, bin)...)
	cmd.Dir = filepath.Join("..", "..")
	if !race {
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go run -exec cp %s: %v\n%s", pkg, err, out)
	}
	return nil
}

// goTool is the go command: on PATH, else in $GOROOT.
func goTool() string {
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	if root := os.Getenv("GOROOT"); root != "" {
		return filepath.Join(root, "bin", "go")
	}
	return "go"
}

// moreParallel runs twice as many parallel tests (the scenarios) as there
// are cores, unless -test.parallel says otherwise: they spend most of
// their time waiting for the processes they start (on 2 cores, 20
// scenarios took 69 s at 2 and 42 s at 4 with the same CPU time).
func moreParallel() {
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		flag.Set("test.parallel", strconv.Itoa(2*runtime.GOMAXPROCS(0)))
	}
}

func TestScript(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		UpdateScripts:       update,
		Setup: func(env *testscript.Env) error {
			home := filepath.Join(env.WorkDir, ".home")
			if err := os.MkdirAll(home, 0o755); err != nil {
				return err
			}
			gitconfig := "[user]\n\tname = Test\n\temail = test@example.invalid\n[init]\n\tdefaultBranch = main\n" +
				"[maintenance]\n\tauto = false\n" // no git maintenance process after each commit
			if err := os.WriteFile(filepath.Join(home, ".gitconfig"), []byte(gitconfig), 0o644); err != nil {
				return err
			}
			env.Setenv("HOME", home)
			env.Setenv("GORACE", "atexit_sleep_ms=0")
			env.Setenv("FAKE_AGENT_DIR", filepath.Join(env.WorkDir, "agent"))
			env.Setenv("LOOP_DELAY", "0")
			env.Setenv("WRITE_TIMEOUT_MINUTES", "0")
			env.Setenv("TZ", "UTC")
			env.Setenv("FAKE_AGENT_VERSION", "2.1.330 (Claude Code)")
			// CI runs as root: the test machine says it is a sandbox, as a
			// root run of real Claude Code needs (--doctor fails without it;
			// doctor_root.txtar unsets it).
			env.Setenv("IS_SANDBOX", "1")
			// the analyser's fixtures, for --analyze scenarios
			fixtures, err := filepath.Abs(filepath.Join("..", "..", "analysis", "testdata"))
			if err != nil {
				return err
			}
			env.Setenv("ANALYSIS_TESTDATA", fixtures)
			return nil
		},
		Cmds: scriptCmds(),
		Condition: func(cond string) (bool, error) {
			if f, ok := conditions[cond]; ok {
				return f(), nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
	})
}

func scriptCmds() map[string]func(ts *testscript.TestScript, neg bool, args []string) {
	cmds := map[string]func(ts *testscript.TestScript, neg bool, args []string){
		"waitfile": cmdWaitfile,
		"gitinit":  cmdGitinit,
		"jsonget":  cmdJSONGet,
		"killpid":  cmdKillpid,
		"calls":    cmdCalls,
		"release":  cmdRelease,
	}
	for k, v := range extraCmds {
		cmds[k] = v
	}
	return cmds
}

// waitfile FILE [SECONDS]: wait until FILE exists (default 20 s).
func cmdWaitfile(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 1 {
		ts.Fatalf("usage: waitfile FILE [SECONDS]")
	}
	limit := 20 * time.Second
	if len(args) > 1 {
		s, _ := strconv.Atoi(args[1])
		limit = time.Duration(s) * time.Second
	}
	p := ts.MkAbs(args[0])
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		if _, err := os.Stat(p); err == nil {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	ts.Fatalf("%s did not appear within %s", args[0], limit)
}

// gitinit: make $WORK a git repository with one commit of everything.
// The fake agent's records of its calls ($FAKE_AGENT_DIR/calls, inside
// $WORK) are no part of the project: git ignores them, as an agent's own
// bookkeeping would be, or every call would change the working tree.
// The repository is a copy of one `git init` made once per test binary
// (a scenario that brings a .git of its own gets git init).
func cmdGitinit(ts *testscript.TestScript, neg bool, args []string) {
	if _, err := os.Lstat(ts.MkAbs(".git")); err == nil {
		ts.Check(ts.Exec("git", "init", "-q", "."))
	} else {
		empty, err := emptyRepository()
		ts.Check(err)
		ts.Check(copyTree(filepath.Join(empty, ".git"), ts.MkAbs(".git")))
	}
	ts.Check(os.WriteFile(ts.MkAbs(".git/info/exclude"), []byte("/agent/calls/\n"), 0o644))
	for _, a := range [][]string{
		{"add", "-A"},
		{"commit", "-q", "-m", "init"},
	} {
		ts.Check(ts.Exec("git", a...))
	}
}

// jsonget FILE KEY WANT: a top-level JSON field (rendered with %v) equals WANT.
func cmdJSONGet(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 3 {
		ts.Fatalf("usage: jsonget FILE KEY WANT")
	}
	got, err := jsonField(ts.MkAbs(args[0]), args[1])
	if err != nil {
		ts.Fatalf("%v", err)
	}
	if (got == args[2]) == neg {
		ts.Fatalf("%s %s = %q, want %s%q", args[0], args[1], got, map[bool]string{true: "not ", false: ""}[neg], args[2])
	}
}

// killpid SIGNAL FILE: send SIGNAL (TERM, INT, KILL, STOP, CONT) to the pid in FILE.
func cmdKillpid(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: killpid SIGNAL FILE")
	}
	sig := map[string]syscall.Signal{"TERM": syscall.SIGTERM, "INT": syscall.SIGINT, "KILL": syscall.SIGKILL,
		"STOP": syscall.SIGSTOP, "CONT": syscall.SIGCONT}[args[0]]
	if sig == 0 {
		ts.Fatalf("unknown signal %s", args[0])
	}
	b, err := os.ReadFile(ts.MkAbs(args[1]))
	ts.Check(err)
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	ts.Check(err)
	ts.Check(syscall.Kill(pid, sig))
}

// release N: let the fake agent's call N, which waits (agent/N.wait or
// agent/default.wait), go on; wait for agent/calls/N.started first.
func cmdRelease(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 || neg {
		ts.Fatalf("usage: release N")
	}
	n, err := strconv.Atoi(args[0])
	ts.Check(err)
	ts.Check(fakeagent.Release(ts.Getenv("FAKE_AGENT_DIR"), n))
}

// calls N: the fake agent was called exactly N times.
func cmdCalls(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: calls N")
	}
	n, err := fakeagent.Count(ts.Getenv("FAKE_AGENT_DIR"))
	if err != nil {
		n = 0
	}
	if (fmt.Sprint(n) == args[0]) == neg {
		ts.Fatalf("agent calls = %d, want %s", n, args[0])
	}
}
