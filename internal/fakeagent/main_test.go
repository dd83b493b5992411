//go:build unix

package fakeagent

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/rogpeppe/go-internal/testscript"
)

const helperEnv = "FAKEAGENT_TEST_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) == "1" {
		Main()
	}
	testscript.Main(m, map[string]func(){"claude": Main, "opencode": Main})
}

func TestScript(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		Setup: func(env *testscript.Env) error {
			env.Setenv("GORACE", "atexit_sleep_ms=0") // a race-built fake agent would sleep 1s on exit 0
			return nil
		},
	})
}

// agent is one invocation of the fake agent through the test binary.
type agent struct {
	argv  []string // argv[0] is the name it is invoked as
	dir   string   // $FAKE_AGENT_DIR; "" leaves it unset
	cwd   string
	stdin string
	env   []string
}

func (a agent) cmd(t *testing.T) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	c := exec.Command(exe)
	c.Args = a.argv
	c.Dir = a.cwd
	c.Env = append([]string{helperEnv + "=1", "GORACE=atexit_sleep_ms=0", "PATH=" + os.Getenv("PATH")}, a.env...)
	if a.dir != "" {
		c.Env = append(c.Env, EnvDir+"="+a.dir)
	}
	if a.stdin != "" {
		c.Stdin = strings.NewReader(a.stdin)
	}
	return c
}

// run runs the agent to completion.
func (a agent) run(t *testing.T) (stdout, stderr string, code int) {
	t.Helper()
	c := a.cmd(t)
	var o, e bytes.Buffer
	c.Stdout, c.Stderr = &o, &e
	err := c.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("run fake agent: %v", err)
	}
	return o.String(), e.String(), c.ProcessState.ExitCode()
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func writeScript(t *testing.T, s Script) string {
	t.Helper()
	dir := t.TempDir()
	if err := s.Write(dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestRecordsAndReplies(t *testing.T) {
	t.Parallel()
	dir := writeScript(t, Script{Default: Reply{Out: "hello {{CALL}} {{SESSION}}\n", Err: "warn {{CALL}}\n", RC: 3}})
	cwd := t.TempDir()
	stdout, stderr, code := agent{
		argv: []string{"/some/bin/claude", "-p", "do it", "two words", ""}, dir: dir, cwd: cwd,
		stdin: "the prompt\n", env: []string{"ZED=last", "ALPHA=first"},
	}.run(t)
	if stdout != "hello 1 sess-1\n" || stderr != "warn 1\n" || code != 3 {
		t.Errorf("got stdout %q stderr %q code %d", stdout, stderr, code)
	}
	calls := filepath.Join(dir, "calls")
	wantArgv := []string{"claude", "-p", "do it", "two words", ""}
	if got, err := Argv(dir, 1); err != nil || !cmp.Equal(got, wantArgv) {
		t.Errorf("Argv = %q, %v; want %q", got, err, wantArgv)
	}
	if got := read(t, filepath.Join(calls, "1.argv")); got != "claude\n-p\ndo it\ntwo words\n\n" {
		t.Errorf("1.argv = %q", got)
	}
	if got := read(t, filepath.Join(calls, "1.stdin")); got != "the prompt\n" {
		t.Errorf("1.stdin = %q", got)
	}
	if got := read(t, filepath.Join(calls, "1.cwd")); got != cwd+"\n" {
		t.Errorf("1.cwd = %q, want %q", got, cwd)
	}
	env := strings.Split(strings.TrimSuffix(read(t, filepath.Join(calls, "1.env")), "\n"), "\n")
	if !slices.IsSorted(env) || !slices.Contains(env, "ALPHA=first") || !slices.Contains(env, "ZED=last") {
		t.Errorf("1.env is not the sorted environment: %q", env)
	}
	if _, err := os.Stat(filepath.Join(calls, "1.started")); err != nil {
		t.Errorf("no started file: %v", err)
	}
	if got := read(t, filepath.Join(calls, "done.log")); got != "1 3\n" {
		t.Errorf("done.log = %q", got)
	}
	if n, err := Count(dir); n != 1 || err != nil {
		t.Errorf("Count = %d, %v; want 1", n, err)
	}
}

func TestPerCallReplies(t *testing.T) {
	t.Parallel()
	dir := writeScript(t, Script{
		Default: Reply{Out: "default {{CALL}}\n", RC: 1, Hang: true},
		Calls: map[int]Reply{
			1: {Out: "first\n"},        // a per-call reply switches the default's hang off
			3: {Err: "third\n", RC: 7}, // and its empty Out replaces the default's
		},
	})
	// call 2 would hang; make it not, by a per-call flag file written by hand
	if err := os.WriteFile(filepath.Join(dir, "2.hang"), []byte("no\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	type result struct {
		Stdout, Stderr string
		Code           int
	}
	var got []result
	for range 3 {
		o, e, c := agent{argv: []string{"codex", "exec"}, dir: dir, cwd: t.TempDir()}.run(t)
		got = append(got, result{o, e, c})
	}
	want := []result{{"first\n", "", 0}, {"default 2\n", "", 1}, {"", "third\n", 7}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("replies (-want +got):\n%s", diff)
	}
}

// A working directory's own replies (dir-<DIR>.<ext>: a swarm worker's)
// come before the default and after a per-call reply.
func TestPerDirectoryReplies(t *testing.T) {
	t.Parallel()
	dir := writeScript(t, Script{Default: Reply{Out: "default\n"}, Calls: map[int]Reply{3: {Out: "third\n"}}})
	if err := os.WriteFile(filepath.Join(dir, "dir-worker-2.out"), []byte("worker-2's {{CALL}}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	w2 := filepath.Join(t.TempDir(), "worker-2")
	os.Mkdir(w2, 0o755)
	var got []string
	for _, cwd := range []string{t.TempDir(), w2, w2} {
		o, _, _ := agent{argv: []string{"claude"}, dir: dir, cwd: cwd}.run(t)
		got = append(got, o)
	}
	if diff := cmp.Diff([]string{"default\n", "worker-2's 2\n", "third\n"}, got); diff != "" {
		t.Errorf("replies (-want +got):\n%s", diff)
	}
}

func TestAuxiliaryCallsAreNotCounted(t *testing.T) {
	t.Parallel()
	dir := writeScript(t, Script{SessionList: `[{"id":"ses_1"}]` + "\n"})
	tests := []struct {
		name string
		a    agent
		want string
	}{
		{"version", agent{argv: []string{"claude", "--version"}, dir: dir}, defaultVersion + "\n"},
		{"version from env", agent{argv: []string{"codex", "-v"}, dir: dir, env: []string{envVersion + "=0.169.0"}}, "0.169.0\n"},
		{"version without a dir", agent{argv: []string{"copilot", "--version"}}, defaultVersion + "\n"},
		{"opencode session list", agent{argv: []string{"opencode", "session", "list", "--format", "json"}, dir: dir}, `[{"id":"ses_1"}]` + "\n"},
		{"opencode session list, no file", agent{argv: []string{"opencode", "session", "list"}, dir: t.TempDir()}, "[]\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			stdout, _, code := tc.a.run(t)
			if stdout != tc.want || code != 0 {
				t.Errorf("stdout %q code %d, want %q and 0", stdout, code, tc.want)
			}
		})
	}
	if n, err := Count(dir); n != 0 || err != nil {
		t.Errorf("Count = %d, %v; want 0", n, err)
	}
	if got := read(t, filepath.Join(dir, "calls", "aux.log")); !strings.Contains(got, "opencode session list --format json\n") || !strings.Contains(got, "claude --version\n") {
		t.Errorf("aux.log = %q", got)
	}
	// "session" is only special for opencode
	if _, _, code := (agent{argv: []string{"claude", "session"}, dir: dir, cwd: t.TempDir()}).run(t); code != 0 {
		t.Errorf("claude session: code %d", code)
	}
	if n, _ := Count(dir); n != 1 {
		t.Errorf("claude session was not counted: Count = %d", n)
	}
}

func TestNoScriptDir(t *testing.T) {
	t.Parallel()
	_, stderr, code := agent{argv: []string{"claude", "-p", "x"}}.run(t)
	if code != 2 || !strings.Contains(stderr, "$FAKE_AGENT_DIR is not set") {
		t.Errorf("code %d stderr %q, want 2 and a hint", code, stderr)
	}
}

func TestBadReplyFiles(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ file, content, wantErr string }{
		{"default.rc", "one", `exit code "one" is not an integer`},
		{"default.delay", "soon", `delay "soon" is neither a duration`},
	} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, tc.file), []byte(tc.content), 0o644); err != nil {
			t.Fatal(err)
		}
		_, stderr, code := agent{argv: []string{"claude"}, dir: dir, cwd: t.TempDir()}.run(t)
		if code != 2 || !strings.Contains(stderr, tc.wantErr) {
			t.Errorf("%s: code %d stderr %q, want 2 and %q", tc.file, code, stderr, tc.wantErr)
		}
	}
}

func TestCheckAndTouch(t *testing.T) {
	t.Parallel()
	dir := writeScript(t, Script{Default: Reply{Check: true, Touch: []string{"src/a.txt", "b.txt"}}})
	cwd := t.TempDir()
	plan := filepath.Join(cwd, ".ralph", "@fix_plan.md")
	if err := os.MkdirAll(filepath.Dir(plan), 0o755); err != nil {
		t.Fatal(err)
	}
	before := "# Plan\n- [x] done\n  - [ ] two\n- [ ] three\n"
	if err := os.WriteFile(plan, []byte(before), 0o644); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		agent{argv: []string{"claude"}, dir: dir, cwd: cwd}.run(t)
	}
	if got, want := read(t, plan), "# Plan\n- [x] done\n  - [x] two\n- [x] three\n"; got != want {
		t.Errorf("plan = %q, want %q", got, want)
	}
	for _, f := range []string{"src/a.txt", "b.txt"} {
		if got := read(t, filepath.Join(cwd, f)); got != "call 1\ncall 2\ncall 3\n" {
			t.Errorf("%s = %q", f, got)
		}
	}
}

func TestTickFirstBox(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, in, want, wantErr string }{
		{"first of two", "- [ ] a\n- [ ] b\n", "- [x] a\n- [ ] b\n", ""},
		{"indented, skips checked", "- [X] a\n\t- [ ] b\n", "- [X] a\n\t- [x] b\n", ""},
		{"not a dash bullet", "* [ ] a\n- [ ] b\n", "* [ ] a\n- [x] b\n", ""},
		{"not at line start", "text - [ ] a\n", "text - [ ] a\n", "no unchecked task"},
		{"none", "- [x] a\n", "- [x] a\n", "no unchecked task"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "plan.md")
			if err := os.WriteFile(p, []byte(tc.in), 0o644); err != nil {
				t.Fatal(err)
			}
			err := tickFirstBox(p)
			if (err == nil) != (tc.wantErr == "") || (err != nil && !strings.Contains(err.Error(), tc.wantErr)) {
				t.Errorf("err = %v, want %q", err, tc.wantErr)
			}
			if got := read(t, p); got != tc.want {
				t.Errorf("plan = %q, want %q", got, tc.want)
			}
		})
	}
}

// waitFile polls for a file another process writes.
func waitFile(t *testing.T, path string) string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		b, err := os.ReadFile(path)
		if err == nil {
			return string(b)
		}
		if time.Now().After(deadline) {
			t.Fatalf("waiting for %s: %v", path, err)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func TestHang(t *testing.T) {
	t.Parallel()
	dir := writeScript(t, Script{Default: Reply{Out: "partial\n", Hang: true}})
	c := agent{argv: []string{"claude"}, dir: dir, cwd: t.TempDir()}.cmd(t)
	out, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	c.Stdout = out
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	waited := make(chan struct{})
	go func() { _ = c.Wait(); close(waited) }()
	waitFile(t, filepath.Join(dir, "calls", "1.started"))
	select {
	case <-waited:
		t.Fatal("the agent exited instead of hanging")
	default:
	}
	if got := read(t, out.Name()); got != "partial\n" {
		t.Errorf("stdout before the hang = %q", got)
	}
	_ = c.Process.Kill()
	<-waited
	if _, err := os.Stat(filepath.Join(dir, "calls", "done.log")); err == nil {
		t.Error("a killed call was logged as done")
	}
}

func TestChildStaysInGroup(t *testing.T) {
	t.Parallel()
	dir := writeScript(t, Script{Default: Reply{Out: "ok\n", Child: true}})
	c := agent{argv: []string{"cursor-agent"}, dir: dir, cwd: t.TempDir()}.cmd(t)
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// a file, not a pipe: the grandchild keeps its stdout open
	out, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	c.Stdout = out
	if err := c.Run(); err != nil {
		t.Fatalf("agent: %v", err)
	}
	pgid := c.Process.Pid
	defer func() { _ = syscall.Kill(-pgid, syscall.SIGKILL) }()
	pid, err := strconv.Atoi(strings.TrimSpace(read(t, filepath.Join(dir, "calls", "1.child.pid"))))
	if err != nil {
		t.Fatal(err)
	}
	got, err := syscall.Getpgid(pid)
	if err != nil {
		t.Fatalf("grandchild %d is not running after the agent exited: %v", pid, err)
	}
	if got != pgid {
		t.Errorf("grandchild is in group %d, want the agent's %d", got, pgid)
	}
	if n, _ := Count(dir); n != 1 {
		t.Errorf("the grandchild was counted as a call: Count = %d", n)
	}
}

func TestDelay(t *testing.T) {
	t.Parallel()
	for _, d := range []string{"150ms", "0.15"} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "default.delay"), []byte(d+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		agent{argv: []string{"claude"}, dir: dir, cwd: t.TempDir()}.run(t)
		if el := time.Since(start); el < 150*time.Millisecond {
			t.Errorf("delay %q: the call took %s", d, el)
		}
	}
}

func TestConcurrentCallsGetDistinctNumbers(t *testing.T) {
	t.Parallel()
	dir := writeScript(t, Script{Default: Reply{Out: "{{CALL}}"}})
	const n = 8
	outs := make([]string, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		c := agent{argv: []string{"copilot"}, dir: dir, cwd: t.TempDir()}.cmd(t)
		wg.Go(func() {
			b, err := c.Output()
			outs[i], errs[i] = string(b), err
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(outs, func(a, b string) int { x, _ := strconv.Atoi(a); y, _ := strconv.Atoi(b); return x - y })
	want := []string{"1", "2", "3", "4", "5", "6", "7", "8"}
	if !cmp.Equal(outs, want) {
		t.Errorf("call numbers = %q, want %q", outs, want)
	}
	if c, err := Count(dir); c != n || err != nil {
		t.Errorf("Count = %d, %v", c, err)
	}
}

func TestFlagOn(t *testing.T) {
	for in, want := range map[string]bool{"": true, "\n": true, "1": true, "true\n": true, "yes": true, "0": false, "false\n": false, " No ": false, "OFF": false} {
		if got := flagOn([]byte(in)); got != want {
			t.Errorf("flagOn(%q) = %v, want %v", in, got, want)
		}
	}
}

func TestParseDelay(t *testing.T) {
	for in, want := range map[string]time.Duration{"2s": 2 * time.Second, "1m30s\n": 90 * time.Second, "3": 3 * time.Second, "0.5": 500 * time.Millisecond, "0s": 0} {
		if got, err := parseDelay(in); got != want || err != nil {
			t.Errorf("parseDelay(%q) = %s, %v; want %s", in, got, err, want)
		}
	}
	if _, err := parseDelay("later"); err == nil {
		t.Error(`parseDelay("later") succeeded`)
	}
}

func TestClaudeJSON(t *testing.T) {
	got := ClaudeJSON("done\n\n"+StatusBlock("COMPLETE", true, 1), "sess-7")
	if strings.Count(got, "\n") != 1 || !strings.HasSuffix(got, "}\n") {
		t.Errorf("not one JSON line: %q", got)
	}
	var v map[string]any
	if err := json.Unmarshal([]byte(got), &v); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"type": "result", "subtype": "success", "is_error": false,
		"duration_ms": float64(claudeDurationMS), "duration_api_ms": float64(claudeDurationAPIMS), "num_turns": float64(claudeNumTurns),
		"result": "done\n\n" + StatusBlock("COMPLETE", true, 1), "session_id": "sess-7", "total_cost_usd": claudeCostUSD,
		"usage": map[string]any{
			"input_tokens": float64(claudeInputTokens), "output_tokens": float64(claudeOutputTokens),
			"cache_read_input_tokens": float64(claudeCacheReadTokens), "cache_creation_input_tokens": float64(claudeCacheCreationTokens),
		},
	}
	if diff := cmp.Diff(want, v); diff != "" {
		t.Errorf("ClaudeJSON (-want +got):\n%s", diff)
	}
}

func TestStatusBlock(t *testing.T) {
	want := "---RALPH_STATUS---\nSTATUS: IN_PROGRESS\nTASKS_COMPLETED_THIS_LOOP: 1\nFILES_MODIFIED: 1\n" +
		"TESTS_STATUS: PASSING\nWORK_TYPE: IMPLEMENTATION\nEXIT_SIGNAL: false\n" +
		"RECOMMENDATION: Continue with the next task\n---END_RALPH_STATUS---\n"
	if got := StatusBlock("IN_PROGRESS", false, 1); got != want {
		t.Errorf("StatusBlock = %q, want %q", got, want)
	}
	if got := StatusBlock("COMPLETE", true, 0); !strings.Contains(got, "STATUS: COMPLETE\n") || !strings.Contains(got, "EXIT_SIGNAL: true\n") {
		t.Errorf("StatusBlock(COMPLETE, true) = %q", got)
	}
}

func TestScriptWrite(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	err := Script{Default: Reply{Delay: time.Second, Touch: []string{"x"}}, Calls: map[int]Reply{2: {Hang: true}}}.Write(dir)
	if err != nil {
		t.Fatal(err)
	}
	for file, want := range map[string]string{
		"default.delay": "1s\n", "default.touch": "x\n", "default.hang": "false\n", "default.wait": "false\n", "default.rc": "0\n",
		"2.hang": "true\n", "2.touch": "", "2.out": "",
	} {
		if got := read(t, filepath.Join(dir, file)); got != want {
			t.Errorf("%s = %q, want %q", file, got, want)
		}
	}
	if err := (Script{Calls: map[int]Reply{0: {}}}).Write(t.TempDir()); err == nil {
		t.Error("call number 0 accepted")
	}
	if _, err := Argv(dir, 1); err == nil {
		t.Error("Argv of a call that never happened succeeded")
	}
}

func TestExpandEpoch(t *testing.T) {
	t.Parallel()
	dir := writeScript(t, Script{Default: Reply{Out: "{{EPOCH}} {{EPOCH+30}}\n"}})
	before := time.Now().Unix()
	stdout, _, _ := agent{argv: []string{"claude"}, dir: dir, cwd: t.TempDir()}.run(t)
	var now, later int64
	if _, err := fmt.Sscanf(stdout, "%d %d", &now, &later); err != nil {
		t.Fatalf("stdout %q: %v", stdout, err)
	}
	if now < before || now > time.Now().Unix() || later != now+30 {
		t.Errorf("stdout %q: want now (%d or later) and now+30", stdout, before)
	}
}

// TestWaitRelease: a .wait call writes calls/N.started, then blocks until
// the test releases it; released, it finishes as usual.
func TestWaitRelease(t *testing.T) {
	t.Parallel()
	dir := writeScript(t, Script{Default: Reply{Out: "ok\n", Wait: true}})
	c := agent{argv: []string{"claude"}, dir: dir, cwd: t.TempDir()}.cmd(t)
	var out bytes.Buffer
	c.Stdout = &out
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	waited := make(chan error, 1)
	go func() { waited <- c.Wait() }()
	if err := AwaitStarted(dir, 1, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	// Nothing can end the call but the release: it is still there.
	select {
	case err := <-waited:
		t.Fatalf("the call ended before its release: %v", err)
	default:
	}
	if _, err := os.Stat(filepath.Join(dir, "calls", "done.log")); err == nil {
		t.Fatal("done.log written before the release")
	}
	if err := Release(dir, 1); err != nil {
		t.Fatal(err)
	}
	if err := <-waited; err != nil {
		t.Fatalf("released call: %v", err)
	}
	if out.String() != "ok\n" || read(t, filepath.Join(dir, "calls", "done.log")) != "1 0\n" {
		t.Errorf("stdout %q, done.log %q", out.String(), read(t, filepath.Join(dir, "calls", "done.log")))
	}
}

// TestWaitReleasedEarly: a release written before the call starts lets it
// through at once; a call switched off per call does not wait.
func TestWaitReleasedEarly(t *testing.T) {
	t.Parallel()
	dir := writeScript(t, Script{Default: Reply{Out: "{{CALL}}\n", Wait: true}, Calls: map[int]Reply{2: {Out: "{{CALL}}\n"}}})
	if err := Release(dir, 1); err != nil {
		t.Fatal(err)
	}
	for n := 1; n <= 2; n++ {
		if stdout, stderr, code := (agent{argv: []string{"codex"}, dir: dir, cwd: t.TempDir()}).run(t); stdout != fmt.Sprint(n, "\n") || code != 0 {
			t.Errorf("call %d: %q, %q, exit %d", n, stdout, stderr, code)
		}
	}
}

// TestWaitNeverReleased: a call nobody releases gives up after its limit
// (the duration in .wait here, a minute by default), says why and exits
// 124, so a test that forgot the release fails instead of hanging.
func TestWaitNeverReleased(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "default.wait"), []byte("50ms\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := agent{argv: []string{"claude"}, dir: dir, cwd: t.TempDir()}.run(t)
	if code != releaseRC || !strings.Contains(stderr, "call 1 was not released within 50ms") {
		t.Errorf("exit %d, stderr %q; want %d and the reason", code, stderr, releaseRC)
	}
	if got := read(t, filepath.Join(dir, "calls", "done.log")); got != "1 124\n" {
		t.Errorf("done.log = %q", got)
	}
	if releaseLimit([]byte("true\n")) != releaseCap || releaseLimit([]byte("2s")) != 2*time.Second || releaseLimit([]byte("1")) != releaseCap {
		t.Error("releaseLimit: want the file's Go duration, else releaseCap")
	}
	if err := AwaitStarted(t.TempDir(), 1, 10*time.Millisecond); err == nil {
		t.Error("AwaitStarted succeeded for a call that never started")
	}
}

// TestChatter: a .chatter call prints a line on stderr every 50 ms while
// it works, then falls silent (here it hangs); with .wait it goes on until
// its release.
func TestChatter(t *testing.T) {
	t.Parallel()
	for _, wait := range []bool{false, true} {
		dir := writeScript(t, Script{Default: Reply{Out: "ok\n", Wait: wait, Chatter: true, Hang: true}})
		c := agent{argv: []string{"claude"}, dir: dir, cwd: t.TempDir()}.cmd(t)
		errFile, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
		if err != nil {
			t.Fatal(err)
		}
		defer errFile.Close()
		c.Stderr = errFile
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		defer func() { _ = c.Process.Kill(); _ = c.Wait() }()
		if err := AwaitStarted(dir, 1, 10*time.Second); err != nil {
			t.Fatal(err)
		}
		working := func() int { return strings.Count(read(t, errFile.Name()), "fakeagent: call 1 is working\n") }
		if wait {
			deadline := time.Now().Add(10 * time.Second)
			for n := working(); n < 3; n = working() { // it goes on while it waits
				if time.Now().After(deadline) {
					t.Fatalf("%d chatter lines in 10 s of waiting", n)
				}
				time.Sleep(10 * time.Millisecond)
			}
			continue
		}
		// Started, it is silent: no line comes in three times the interval.
		before := working()
		if before < 1 {
			t.Fatalf("no chatter line before the call started: %q", read(t, errFile.Name()))
		}
		time.Sleep(3 * chatterEvery)
		if after := working(); after != before {
			t.Errorf("%d chatter lines after the call started", after-before)
		}
	}
}
