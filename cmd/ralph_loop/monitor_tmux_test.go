package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// These tests run --monitor under a real tmux, on a server of their own
// (its socket in a temporary TMUX_TMPDIR, never the user's server), with
// the test binary as ralph_loop and as the fake agent (TestMain puts both
// on PATH). The server is started without the variables the caller sets
// for the loop, so they can only reach the agent through --monitor.

// tmuxServer is the test's own tmux server.
type tmuxServer struct {
	t   *testing.T
	env []string
}

func newTmuxServer(t *testing.T) *tmuxServer {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed (.ci/run installs it)")
	}
	// A short directory: a socket path has to fit in about 100 bytes.
	sock, err := os.MkdirTemp("", "rlm")
	if err != nil {
		t.Fatal(err)
	}
	s := &tmuxServer{t: t, env: []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "TMUX_TMPDIR=" + sock,
		"TERM=xterm", "SHELL=/bin/sh", "TZ=UTC", "GORACE=atexit_sleep_ms=0",
	}}
	t.Cleanup(func() {
		s.tmux("kill-server")
		os.RemoveAll(sock)
	})
	return s
}

// tmux runs a tmux command on the test's server.
func (s *tmuxServer) tmux(args ...string) (string, error) {
	cmd := exec.Command("tmux", append([]string{"-f", "/dev/null"}, args...)...)
	cmd.Env = s.env
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func (s *tmuxServer) must(args ...string) string {
	s.t.Helper()
	out, err := s.tmux(args...)
	if err != nil {
		s.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// poll calls ok until it holds, for at most limit; on failure the test
// shows what every pane of s shows. Most checks start a tmux client, so
// the pause between them grows from 20 to 200 ms: a wait of seconds (a
// run's end) asks a few dozen times, not hundreds. What is polled stays
// once it holds (a pane, its last screen, an exit code).
func (s *tmuxServer) poll(t *testing.T, limit time.Duration, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	pause := 20 * time.Millisecond
	for !ok() {
		if time.Now().After(deadline) {
			var b strings.Builder
			out, _ := s.tmux("list-panes", "-a", "-F", "#{pane_id}")
			for _, p := range strings.Fields(out) {
				screen, _ := s.tmux("capture-pane", "-p", "-t", p)
				b.WriteString("--- pane " + p + "\n" + screen)
			}
			t.Fatalf("%s: not within %s\n%s", what, limit, b.String())
		}
		time.Sleep(pause)
		pause = min(2*pause, 200*time.Millisecond)
	}
}

// monitorProject lays out a project whose agent either works (touches a
// file each call) or makes no progress at all (the breaker opens after
// three calls).
func monitorProject(t *testing.T, progress bool) string {
	t.Helper()
	dir := t.TempDir()
	reply := `{"type":"result","subtype":"success","is_error":false,"result":"Worked.\n---RALPH_STATUS---\nSTATUS: IN_PROGRESS\nTASKS_COMPLETED_THIS_LOOP: 0\nFILES_MODIFIED: 1\nTESTS_STATUS: PASSING\nWORK_TYPE: IMPLEMENTATION\nEXIT_SIGNAL: false\nRECOMMENDATION: next\n---END_RALPH_STATUS---","session_id":"sess-1"}`
	files := map[string]string{
		".ralph/PROMPT.md":     "Do the next task.\n",
		".ralph/@fix_plan.md":  "- [ ] Task A\n- [ ] Task B\n",
		"src/app.txt":          "hello\n",
		"agent/default.out":    reply + "\n",
		"agent/default.touch":  "src/app.txt\n",
		".gitignore":           "agent/\n",
		"agent/.keep-for-test": "",
	}
	if !progress {
		files["agent/default.out"] = strings.ReplaceAll(reply, "FILES_MODIFIED: 1", "FILES_MODIFIED: 0") + "\n"
		delete(files, "agent/default.touch")
	}
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"init", "-q", "."}, {"add", "-A"}, {"-c", "user.name=T", "-c", "user.email=t@example.invalid", "commit", "-q", "-m", "init"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return dir
}

// callerCommand is the shell command a person types: variables of their
// own, then ralph_loop --monitor; its exit code lands in outer.code.
func callerCommand(dir, prefix, args string) string {
	return prefix + "MY_VAR='it'\\''s mine' DEMO_AGENT_DELAY=7 FAKE_AGENT_DIR=" + shellQuote(filepath.Join(dir, "agent")) +
		" FAKE_AGENT_VERSION='2.1.330 (Claude Code)' LOOP_DELAY=0 WRITE_TIMEOUT_MINUTES=0 ralph_loop --monitor " + args +
		"; echo $? > outer.code; sleep 600"
}

// loopPane is the id and width of the pane that runs the loop, "" while
// there is none.
func (s *tmuxServer) loopPane() (id string, width int) {
	out, _ := s.tmux("list-panes", "-a", "-F", "#{pane_id} #{pane_width} #{pane_start_command}")
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, monitorPaneFlag+" loop") {
			f := strings.Fields(l)
			w := 0
			for _, c := range f[1] {
				w = w*10 + int(c-'0')
			}
			return f[0], w
		}
	}
	return "", 0
}

// watchLoop waits for the loop's pane to show how the run ended, checks
// what it shows (boxes that fit the pane, the status pane's summary),
// then presses Enter there to close it at once.
func (s *tmuxServer) watchLoop(t *testing.T, wantWidth int) string {
	t.Helper()
	var pane string
	var width int
	s.poll(t, 20*time.Second, "the loop's pane", func() bool { pane, width = s.loopPane(); return pane != "" })
	var screen string
	s.poll(t, 30*time.Second, "the end of the run in the loop's pane", func() bool {
		joined, err := s.tmux("capture-pane", "-p", "-J", "-t", pane)
		if err != nil || !strings.Contains(joined, "Enter closes it now") {
			return false
		}
		screen = s.must("capture-pane", "-p", "-S", "-", "-t", pane)
		return true
	})
	if width != wantWidth {
		t.Errorf("the loop's pane is %d columns, want %d (stacked below 120)\n%s", width, wantWidth, s.must("list-panes", "-a"))
	}
	boxes := 0
	for _, l := range strings.Split(screen, "\n") {
		l = strings.TrimRight(l, " ")
		if !strings.ContainsAny(l, "╔║╚═") {
			continue
		}
		boxes++
		first, _ := utf8.DecodeRuneInString(l)
		last, _ := utf8.DecodeLastRuneInString(l)
		if n := utf8.RuneCountInString(l); n > width || !strings.ContainsRune("╔║╚", first) || !strings.ContainsRune("╗║╝", last) {
			t.Errorf("a broken box line (%d columns in a %d-column pane): %q", n, width, l)
		}
	}
	if boxes == 0 {
		t.Errorf("no box in the loop's pane:\n%s", screen)
	}
	status := ""
	out, _ := s.tmux("list-panes", "-a", "-F", "#{pane_id} #{pane_start_command}")
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, monitorPaneFlag+" status") {
			status = strings.Fields(l)[0]
		}
	}
	s.poll(t, 5*time.Second, "the status pane's summary", func() bool {
		out, _ := s.tmux("capture-pane", "-p", "-t", status)
		return strings.Contains(out, "State:     stopped")
	})
	if out := s.must("capture-pane", "-p", "-t", status); strings.Contains(out, "{") || strings.Contains(out, "Current Status") {
		t.Errorf("the status pane shows more than the summary:\n%s", out)
	}
	s.must("send-keys", "-t", pane, "Enter")
	return screen
}

// outerCode waits for the exit code of the caller's ralph_loop --monitor.
func (s *tmuxServer) outerCode(t *testing.T, dir string) string {
	t.Helper()
	var code []byte
	s.poll(t, 10*time.Second, "the exit code of ralph_loop --monitor", func() bool {
		var err error
		code, err = os.ReadFile(filepath.Join(dir, "outer.code"))
		return err == nil && len(code) > 0
	})
	return strings.TrimSpace(string(code))
}

// agentEnv is the environment the fake agent's first call had.
func agentEnv(t *testing.T, dir string) string {
	t.Helper()
	env, err := os.ReadFile(filepath.Join(dir, "agent", "calls", "1.env"))
	if err != nil {
		t.Fatal(err)
	}
	return string(env)
}

// Started inside a tmux session of a running server: the panes open in a
// new window of that session (no nested attach), the loop gets variables
// the server never had, the boxes fit the 80x24 window's stacked pane,
// the window closes after the run and the command exits with the loop's
// code (4: --max-loops).
func TestMonitorInsideTmux(t *testing.T) {
	t.Parallel()
	s := newTmuxServer(t)
	dir := monitorProject(t, true)
	s.must("new-session", "-d", "-s", "user", "-x", "80", "-y", "24", "-c", dir, callerCommand(dir, "", "--max-loops 1"))
	s.watchLoop(t, 80)
	if code := s.outerCode(t, dir); code != "4" {
		t.Errorf("ralph_loop --monitor exited %s, want 4 (the loop's --max-loops code)", code)
	}
	if out := s.must("list-panes", "-a", "-F", "#{session_name}:#{window_index} #{pane_start_command}"); strings.Count(strings.TrimSpace(out), "\n") != 0 || strings.Contains(out, monitorPaneFlag) {
		t.Errorf("the monitor's panes are still there:\n%s", out)
	}
	caller := s.must("capture-pane", "-p", "-t", "user")
	for _, bad := range []string{"nested", "exit status", "attach"} {
		if strings.Contains(caller, bad) {
			t.Errorf("the caller's pane says %q:\n%s", bad, caller)
		}
	}
	if !strings.Contains(caller, "ended with exit code 4 (stopped: max_loops, loop 1)") {
		t.Errorf("the caller's pane does not say how the loop ended:\n%s", caller)
	}
	env := agentEnv(t, dir)
	for _, want := range []string{"MY_VAR=it's mine\n", "DEMO_AGENT_DELAY=7\n"} {
		if !strings.Contains(env, want) {
			t.Errorf("the agent did not get %q", strings.TrimSpace(want))
		}
	}
	if out, err := s.tmux("show-environment", "-g", "MY_VAR"); err == nil {
		t.Fatalf("the server had MY_VAR (%s): the test proves nothing", out)
	}
}

// Started outside tmux with a server already running: a session of its
// own, attached; the boxes are redrawn to the 60-column pane; the session
// is gone after the run and the command exits with the loop's code (2:
// the circuit breaker opened).
func TestMonitorOutsideTmux(t *testing.T) {
	t.Parallel()
	s := newTmuxServer(t)
	dir := monitorProject(t, false)
	s.must("new-session", "-d", "-s", "user", "-x", "60", "-y", "20", "-c", dir, callerCommand(dir, "unset TMUX; ", ""))
	screen := s.watchLoop(t, 60)
	if !strings.Contains(screen, "CIRCUIT BREAKER OPENED") {
		t.Errorf("the breaker's banner is missing:\n%s", screen)
	}
	if code := s.outerCode(t, dir); code != "2" {
		t.Errorf("ralph_loop --monitor exited %s, want 2 (the breaker's code)", code)
	}
	if out := s.must("list-sessions", "-F", "#{session_name}"); strings.TrimSpace(out) != "user" {
		t.Errorf("sessions after the run:\n%s", out)
	}
	if env := agentEnv(t, dir); !strings.Contains(env, "MY_VAR=it's mine\n") {
		t.Error("the agent did not get MY_VAR")
	}
}

// A person who detaches gets the command line back (exit 0) while the
// loop goes on; the loop's pane still closes the session afterwards and
// leaves no file behind.
func TestMonitorDetach(t *testing.T) {
	t.Parallel()
	s := newTmuxServer(t)
	dir := monitorProject(t, true)
	os.WriteFile(filepath.Join(dir, "agent", "default.delay"), []byte("1s\n"), 0o644)
	s.must("new-session", "-d", "-s", "user", "-x", "80", "-y", "24", "-c", dir, callerCommand(dir, "unset TMUX; ", "--max-loops 1"))
	var client string
	s.poll(t, 20*time.Second, "the monitor's client", func() bool {
		out, _ := s.tmux("list-clients", "-F", "#{client_name} #{session_name}")
		for _, l := range strings.Split(out, "\n") {
			if f := strings.Fields(l); len(f) == 2 && strings.HasPrefix(f[1], "ralph-") {
				client = f[0]
			}
		}
		return client != ""
	})
	s.must("detach-client", "-t", client)
	if code := s.outerCode(t, dir); code != "0" {
		t.Errorf("ralph_loop --monitor exited %s after a detach, want 0", code)
	}
	if out := s.must("capture-pane", "-p", "-J", "-t", "user"); !strings.Contains(out, "Detached: the loop keeps running") || strings.Contains(out, "ended with exit code") {
		t.Errorf("the caller's pane after a detach:\n%s", out)
	}
	s.watchLoop(t, 80)
	s.poll(t, 10*time.Second, "the monitor's session to close", func() bool {
		out, _ := s.tmux("list-sessions", "-F", "#{session_name}")
		return strings.TrimSpace(out) == "user"
	})
	left, _ := filepath.Glob(filepath.Join(dir, ".ralph", "logs", ".monitor-*"))
	if len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
}
