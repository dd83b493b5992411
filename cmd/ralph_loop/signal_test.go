//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ralphloop/ralph_loop/internal/fakeagent"
)

// These tests run the real program as a separate process (the test binary
// registered as ralph_loop, and as the fake claude, by TestMain) and send it
// real signals, as bmalph does.

// loopProject is a scratch git project with a plan of n unchecked tasks.
type loopProject struct {
	dir   string // project (cwd of ralph_loop)
	agent string // FAKE_AGENT_DIR
	home  string
}

func newLoopProject(t *testing.T, tasks int, script fakeagent.Script) *loopProject {
	t.Helper()
	root := t.TempDir()
	p := &loopProject{dir: filepath.Join(root, "proj"), agent: filepath.Join(root, "agent"), home: filepath.Join(root, "home")}
	p.writeHome(t)
	// The committed project is the same for every test of n tasks: it is
	// made once (git init, add, commit) and copied.
	tpl, err := repoTemplate(fmt.Sprintf("loop project of %d tasks", tasks), func(dir string) error {
		tp := &loopProject{dir: filepath.Join(dir, "proj"), home: filepath.Join(dir, "home")}
		return tp.makeProject(tasks)
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := copyTree(filepath.Join(tpl, "proj"), p.dir); err != nil {
		t.Fatal(err)
	}
	if err := script.Write(p.agent); err != nil {
		t.Fatal(err)
	}
	return p
}

// writeHome writes the home with the tests' git config.
func (p *loopProject) writeHome(t *testing.T) {
	t.Helper()
	if err := writeFiles(p.home, map[string]string{".gitconfig": testGitconfig}); err != nil {
		t.Fatal(err)
	}
}

// testGitconfig is the tests' ~/.gitconfig.
const testGitconfig = "[user]\n\tname = Test\n\temail = test@example.invalid\n[init]\n\tdefaultBranch = main\n" +
	"[maintenance]\n\tauto = false\n" // no git maintenance process after each commit

// makeProject writes a project of n tasks and commits it (git init, add,
// commit). It returns its error rather than ending a test: it runs for
// whichever test asks for the template first.
func (p *loopProject) makeProject(tasks int) error {
	if err := writeFiles(p.home, map[string]string{".gitconfig": testGitconfig}); err != nil {
		return err
	}
	if err := writeFiles(p.dir, map[string]string{
		".ralph/PROMPT.md":    "Do the next task.\n",
		".ralph/@fix_plan.md": planOf(tasks),
		"src/app.txt":         "hello\n",
	}); err != nil {
		return err
	}
	for _, args := range [][]string{{"init", "-q", "."}, {"add", "-A"}, {"commit", "-q", "-m", "init"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = p.dir, p.env(nil)
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("git %v: %v\n%s", args, err, out)
		}
	}
	return nil
}

// writeFiles writes files (relative path → content) under dir.
func writeFiles(dir string, files map[string]string) error {
	for rel, content := range files {
		path := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// writePlan replaces @fix_plan.md with n unchecked tasks.
func (p *loopProject) writePlan(t *testing.T, n int) {
	t.Helper()
	mustWrite(t, filepath.Join(p.dir, ".ralph", "@fix_plan.md"), planOf(n))
}

// planOf is a plan of n unchecked tasks.
func planOf(n int) string {
	var b strings.Builder
	b.WriteString("# Fix Plan\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "- [ ] Task %d\n", i)
	}
	return b.String()
}

// env is the child environment: ours (with testscript's PATH holding the
// ralph_loop and claude copies of the test binary), minus anything that
// would configure the loop, plus fixed test settings and extra.
func (p *loopProject) env(extra []string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case k == "PATH" || k == "TMPDIR" || k == "LANG" || k == "GOCOVERDIR" || strings.HasPrefix(k, "GO"):
			env = append(env, kv)
		}
	}
	env = append(env,
		"HOME="+p.home,
		"TZ=UTC",
		"TERM=dumb",
		"GORACE=atexit_sleep_ms=0",
		fakeagent.EnvDir+"="+p.agent,
		"LOOP_DELAY=0",
		"WRITE_TIMEOUT_MINUTES=0",
	)
	return append(env, extra...)
}

func (p *loopProject) path(rel string) string { return filepath.Join(p.dir, rel) }

// command is ralph_loop in the project, in its own session as bmalph
// starts it (pid = pgid = sid), with stdin /dev/null.
func (p *loopProject) command(t *testing.T, extraEnv []string, args ...string) *exec.Cmd {
	t.Helper()
	bin, err := exec.LookPath("ralph_loop")
	if err != nil {
		t.Fatalf("ralph_loop is not on PATH (TestMain registers it): %v", err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = p.dir
	cmd.Env = p.env(extraEnv)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	return cmd
}

func mustWrite(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// waitFor polls cond every 10 ms until it holds or limit passes.
func waitFor(limit time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(limit)
	for {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// readPid reads a pid file written by the fake agent.
func readPid(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return pid
}

// processGone reports whether pid no longer runs. A zombie counts as gone:
// it runs no code and holds no files, it only waits for a parent (or an
// init that may not reap in a container) to collect it.
func processGone(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return true
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return os.IsNotExist(err)
	}
	// pid (comm) S ...: the state follows the last ')'.
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2] == 'Z' || s[i+2] == 'X'
	}
	return false
}

// readJSONMap parses a JSON object file.
func readJSONMap(t *testing.T, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s is not a JSON object: %v\n%s", path, err, b)
	}
	return m
}

func hangScript() fakeagent.Script {
	return fakeagent.Script{Default: fakeagent.Reply{
		Out:   `{"type":"system","subtype":"init","session_id":"sess-{{CALL}}"}` + "\n",
		Hang:  true,
		Child: true,
	}}
}

func tickScript() fakeagent.Script {
	return fakeagent.Script{Default: fakeagent.Reply{
		Out:   fakeagent.ClaudeJSON("Did one task.\n"+fakeagent.StatusBlock("IN_PROGRESS", false, 1), "sess-{{CALL}}") + "\n",
		Check: true,
		Touch: []string{"src/app.txt"},
	}}
}

// floodReply is a claude stream-json reply whose text deltas, rendered by
// --live, put about n*400 bytes on stdout; it ticks one task.
func floodReply(n int) fakeagent.Reply {
	var live strings.Builder
	live.WriteString(`{"type":"system","subtype":"init","session_id":"sess-{{CALL}}"}` + "\n")
	chunk := strings.Repeat("streamed text that nobody reads. ", 12)
	for range n {
		fmt.Fprintf(&live, `{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":%q}}}`+"\n", chunk+"\n")
	}
	result := fakeagent.ClaudeJSON("Did one task.\n"+fakeagent.StatusBlock("IN_PROGRESS", false, 1), "sess-{{CALL}}")
	live.WriteString(result + "\n")
	return fakeagent.Reply{Out: live.String(), Check: true, Touch: []string{"src/app.txt"}}
}

// TestSignalStopsLoopAndAgent: a signal during an agent call stops the loop
// within 2 s with the conventional exit code, status.json "stopped", the
// session reset, and no process of the agent's group left (the agent and
// its grandchild that holds the agent's output pipes).
func TestSignalStopsLoopAndAgent(t *testing.T) {
	cases := []struct {
		name   string
		sig    syscall.Signal
		group  bool // to the whole process group, as bmalph's "stop" does
		full   bool // stdout/stderr: a pipe nobody reads, already full (bmalph's dashboard)
		code   int
		reason string
	}{
		{"SIGTERM to the group (bmalph stop)", syscall.SIGTERM, true, false, 143, "SIGTERM"},
		{"SIGTERM to the loop", syscall.SIGTERM, false, false, 143, "SIGTERM"},
		{"SIGINT to the loop", syscall.SIGINT, false, false, 130, "SIGINT"},
		{"SIGINT to the group (Ctrl-C)", syscall.SIGINT, true, false, 130, "SIGINT"},
		{"SIGTERM to the group, console full", syscall.SIGTERM, true, true, 143, "SIGTERM"},
		{"SIGHUP to the loop (terminal closed)", syscall.SIGHUP, false, false, 129, "SIGHUP"},
		{"SIGQUIT to the loop (Ctrl+\\)", syscall.SIGQUIT, false, false, 131, "SIGQUIT"},
		{"SIGQUIT to the group", syscall.SIGQUIT, true, false, 131, "SIGQUIT"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			script, args, hangCall := hangScript(), []string(nil), 1
			if tc.full {
				// The first call streams ~160 KB through --live, more than
				// the pipe holds; the second one hangs.
				script.Calls = map[int]fakeagent.Reply{1: floodReply(400)}
				args, hangCall = []string{"--live", "--verbose"}, 2
			}
			p := newLoopProject(t, 2, script)
			var console bytes.Buffer
			cmd := p.command(t, nil, args...)
			if tc.full {
				r, w, err := os.Pipe()
				if err != nil {
					t.Fatal(err)
				}
				defer r.Close()
				defer w.Close()
				cmd.Stdout, cmd.Stderr = w, w
			} else {
				cmd.Stdout, cmd.Stderr = &console, &console
				cmd.WaitDelay = 5 * time.Second // a process holding our pipes shows as ErrWaitDelay
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			calls := filepath.Join(p.agent, "calls")
			started := filepath.Join(calls, strconv.Itoa(hangCall)+".started")
			if !waitFor(20*time.Second, func() bool { _, err := os.Stat(started); return err == nil }) {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("agent call %d was not started within 20 s\nconsole:\n%s", hangCall, console.String())
			}
			agentPid := readPid(t, started)
			childPid := readPid(t, filepath.Join(calls, strconv.Itoa(hangCall)+".child.pid"))

			target := cmd.Process.Pid
			if tc.group {
				target = -target
			}
			sent := time.Now()
			if err := syscall.Kill(target, tc.sig); err != nil {
				t.Fatal(err)
			}
			err := cmd.Wait()
			took := time.Since(sent)
			if errors.Is(err, exec.ErrWaitDelay) {
				t.Errorf("a process still held ralph_loop's stdout/stderr after it exited")
			}
			if code := cmd.ProcessState.ExitCode(); code != tc.code {
				t.Errorf("exit code = %d (%v), want %d\nconsole:\n%s", code, cmd.ProcessState, tc.code, console.String())
			}
			if took > 2*time.Second {
				t.Errorf("ralph_loop took %s to exit after %s, want <= 2s", took.Round(time.Millisecond), tc.reason)
			}

			checkStopped(t, p, tc.reason, map[string]int{"agent": agentPid, "agent's grandchild": childPid})
			if strings.Contains(console.String(), "goroutine ") {
				t.Errorf("ralph_loop dumped its goroutines:\n%s", console.String())
			}
			if !tc.full && !strings.Contains(console.String(), "interrupted by "+tc.reason) {
				t.Errorf("stderr does not say the loop was interrupted by %s:\n%s", tc.reason, console.String())
			}
		})
	}
}

// checkStopped checks what a stop by signal leaves behind: status.json
// "stopped" for that reason, the session reset, and none of the given
// processes alive.
func checkStopped(t *testing.T, p *loopProject, reason string, pids map[string]int) {
	t.Helper()
	st := readJSONMap(t, p.path(".ralph/status.json"))
	for k, want := range map[string]string{"status": "stopped", "last_action": "interrupted", "exit_reason": reason} {
		if st[k] != want {
			t.Errorf("status.json %s = %v, want %q", k, st[k], want)
		}
	}
	sess := readJSONMap(t, p.path(".ralph/.ralph_session"))
	if sess["session_id"] != "" || sess["reset_reason"] != "manual_interrupt" {
		t.Errorf(".ralph_session = %v, want session_id \"\" and reset_reason manual_interrupt", sess)
	}
	for name, pid := range pids {
		// SIGKILL is delivered asynchronously: allow the kernel a moment.
		if !waitFor(time.Second, func() bool { return processGone(pid) }) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Errorf("the %s (pid %d) survived ralph_loop's exit", name, pid)
		}
	}
}

// TestSignalSecondInstanceRefuses: a second ralph_loop in the same project
// exits 1 and names the lock file and the running loop's pid; the first
// one is not disturbed.
func TestSignalSecondInstanceRefuses(t *testing.T) {
	t.Parallel()
	p := newLoopProject(t, 2, hangScript())
	first := p.command(t, nil)
	var firstErr bytes.Buffer
	first.Stderr = &firstErr
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		syscall.Kill(first.Process.Pid, syscall.SIGTERM)
		first.Wait()
	}()
	started := filepath.Join(p.agent, "calls", "1.started")
	if !waitFor(20*time.Second, func() bool { _, err := os.Stat(started); return err == nil }) {
		t.Fatalf("the first loop did not start its agent within 20 s\nstderr:\n%s", firstErr.String())
	}

	second := p.command(t, nil)
	var out bytes.Buffer
	second.Stdout, second.Stderr = &out, &out
	err := second.Run()
	if code := second.ProcessState.ExitCode(); code != 1 {
		t.Errorf("second ralph_loop: exit code %d (%v), want 1\n%s", code, err, out.String())
	}
	msg := out.String()
	if !strings.Contains(msg, ".ralph_loop.lock") {
		t.Errorf("second ralph_loop does not name the lock file:\n%s", msg)
	}
	if !strings.Contains(msg, strconv.Itoa(first.Process.Pid)) {
		t.Errorf("second ralph_loop does not name the running loop's pid %d:\n%s", first.Process.Pid, msg)
	}
	if n, _ := fakeagent.Count(p.agent); n != 1 {
		t.Errorf("agent calls = %d, want 1 (the second loop must not call the agent)", n)
	}
	if processGone(first.Process.Pid) {
		t.Errorf("the first loop died")
	}
}

// TestConsoleNeverBlocks: stdout and stderr that nobody reads never block
// or kill the loop. bmalph's dashboard leaves the pipes undrained, and its
// detach closes them.
func TestConsoleNeverBlocks(t *testing.T) {
	const tasks = 8
	// A --live run streams every text delta of the agent to stdout: about
	// 40 KB per call here, 320 KB in all, five times a pipe's buffer.
	liveScript := fakeagent.Script{Default: floodReply(100)}

	cases := []struct {
		name   string
		script fakeagent.Script
		args   []string
		closed bool // the read end is closed before the loop starts (detach)
	}{
		{"closed pipe", tickScript(), []string{"--verbose"}, true},
		{"closed pipe, live", liveScript, []string{"--live", "--verbose"}, true},
		{"undrained pipe, live", liveScript, []string{"--live", "--verbose"}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := newLoopProject(t, tasks, tc.script)
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			if tc.closed {
				r.Close()
			} else {
				defer r.Close()
			}
			cmd := p.command(t, nil, tc.args...)
			cmd.Stdout, cmd.Stderr = w, w
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			w.Close()
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case err = <-done:
			case <-time.After(30 * time.Second):
				cmd.Process.Kill()
				<-done
				st, _ := os.ReadFile(p.path(".ralph/status.json"))
				t.Fatalf("ralph_loop did not finish %d loops within 30 s (blocked on its console?)\nstatus.json: %s", tasks, st)
			}
			if err != nil {
				t.Errorf("ralph_loop: %v (%v), want exit 0", err, cmd.ProcessState)
			}
			st := readJSONMap(t, p.path(".ralph/status.json"))
			if st["status"] != "completed" || st["exit_reason"] != "plan_complete" {
				t.Errorf("status.json status=%v exit_reason=%v, want completed/plan_complete", st["status"], st["exit_reason"])
			}
			if n, _ := fakeagent.Count(p.agent); n != tasks {
				t.Errorf("agent calls = %d, want %d", n, tasks)
			}
			if !tc.closed {
				// The loop really wrote more than a pipe holds.
				if n, err := r.Read(make([]byte, 1)); n == 0 {
					t.Errorf("nothing was written to the undrained pipe: %v", err)
				}
			}
		})
	}
}
