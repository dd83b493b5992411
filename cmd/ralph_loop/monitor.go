package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/ralphloop/ralph_loop/config"
	"github.com/ralphloop/ralph_loop/ralphdir"
)

// noTmux is the refusal of --monitor on a system without tmux: Windows has
// none, so one line points to --live there.
func noTmux(goos string) error {
	if goos == "windows" {
		return &exitError{code: 1, lines: []string{
			"--monitor needs tmux, which Windows does not have; run ralph_loop --live instead (and ralph_loop --status in a second window to watch it)",
		}}
	}
	return &exitError{code: 1, lines: []string{
		"tmux is not installed. Please install tmux or run without --monitor flag.",
		"Install tmux:",
		"  Ubuntu/Debian: sudo apt-get install tmux",
		"  macOS: brew install tmux",
		"  CentOS/RHEL: sudo yum install tmux",
	}}
}

// monitor is --monitor: a tmux session laid out as the bash loop's — the
// loop (with --live) on the left, a tail -F of live.log (it is replaced
// atomically each loop) top right, a status view bottom right — all run by
// this binary's own path, never a different ralph found on PATH.
func monitor(cfg *config.Config, args []string, stderr io.Writer) error {
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		return noTmux(runtime.GOOS)
	}
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("cannot find my own executable for the tmux panes: %w", err)
	}
	cwd, _ := os.Getwd()
	ralph := cfg.RalphDir
	if !filepath.IsAbs(ralph) {
		ralph = filepath.Join(cwd, ralph)
	}
	live := filepath.Join(ralph, ralphdir.LiveLog)
	os.MkdirAll(ralph, 0o755)
	ralphdir.WriteFileAtomic(live, []byte("=== Ralph Live Output - Waiting for first loop... ===\n"), 0o644)

	name := "ralph-" + strconv.FormatInt(time.Now().Unix(), 10)
	loopCmd := shellQuote(self) + " --live"
	for _, a := range args {
		if a == "-m" || a == "--monitor" || a == "-l" || a == "--live" {
			continue
		}
		loopCmd += " " + shellQuote(a)
	}
	statusCmd := "while :; do clear; " + shellQuote(self) + " --status; sleep 2; done"
	if _, err := exec.LookPath("bmalph"); err == nil {
		statusCmd = "bmalph watch"
	}
	// Each pane runs its command directly (a login shell would reset PATH),
	// then stays open with a shell.
	env := forwardEnv(os.Environ())
	pane := func(cmd string) string { return cmd + `; exec "${SHELL:-sh}"` }
	steps := [][]string{
		append(append([]string{"new-session", "-d", "-s", name, "-c", cwd}, env...), pane(loopCmd)),
		append(append([]string{"split-window", "-h", "-t", name + ":.0", "-c", cwd}, env...), pane("tail -F "+shellQuote(live))),
		append(append([]string{"split-window", "-v", "-t", name + ":.1", "-c", cwd}, env...), pane(statusCmd)),
		{"select-pane", "-t", name + ":.0", "-T", "Ralph Loop"},
		{"rename-window", "-t", name, "Ralph: Loop | Output | Status"},
	}
	fmt.Fprintf(stderr, "Setting up tmux session: %s\n", name)
	for _, s := range steps {
		if out, err := exec.Command(tmux, s...).CombinedOutput(); err != nil {
			return fmt.Errorf("tmux %s: %w %s", s[0], err, strings.TrimSpace(string(out)))
		}
	}
	fmt.Fprintln(stderr, "Tmux session created with 3 panes:")
	fmt.Fprintln(stderr, "  Left:         Ralph loop")
	fmt.Fprintln(stderr, "  Right-top:    agent live output")
	fmt.Fprintln(stderr, "  Right-bottom: Status monitor")
	fmt.Fprintln(stderr, "Use Ctrl+B then D to detach from session")
	fmt.Fprintf(stderr, "Use 'tmux attach -t %s' to reattach\n", name)
	cmd := exec.Command(tmux, "attach-session", "-t", name)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		fmt.Fprintf(stderr, "ralph_loop: tmux attach: %v (the session %s keeps running; attach with 'tmux attach -t %s')\n", err, name, name)
	}
	return nil
}

// forwardedPrefixes are the variables the panes get from the caller: the
// agent must be found (PATH) and the loop configured the same way as the
// command that asked for the monitor (tmux panes start from the server's
// environment otherwise).
var forwardedPrefixes = []string{
	"PATH=", "RALPH_", "CLAUDE_", "PLATFORM_DRIVER=", "MAX_", "CB_", "SESSION_", "REVIEW_",
	"QUALITY_GATE", "TEST_COMMAND=", "ALLOWED_TOOLS=", "PERMISSION_", "WRITE_TIMEOUT_", "LOOP_DELAY=",
	"IDLE_", "STALL_LIMIT=", "DONE_PATTERN=", "INACTIVITY_TIMEOUT=", "AGENT_", "EVENTS_FILE=",
	"ANTHROPIC_", "OPENAI_", "CODEX_", "CURSOR_", "COPILOT_", "GITHUB_TOKEN=", "GH_TOKEN=", "OPENCODE_",
}

// forwardEnv returns "-e NAME=value" tmux arguments for the variables the
// panes need.
func forwardEnv(environ []string) []string {
	var args []string
	for _, kv := range environ {
		for _, p := range forwardedPrefixes {
			if strings.HasPrefix(kv, p) {
				args = append(args, "-e", kv)
				break
			}
		}
	}
	return args
}

// shellQuote quotes s for a POSIX shell (tmux types it into one).
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,+@%", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
