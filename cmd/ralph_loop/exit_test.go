package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ralphloop/ralph_loop/internal/config"
	"github.com/ralphloop/ralph_loop/internal/engine"
	"github.com/ralphloop/ralph_loop/internal/ralphdir"
)

// TestExitCode pins how each kind of ending is shown and which exit code it
// gives: the one place every command ends.
func TestExitCode(t *testing.T) {
	cases := []struct {
		name             string
		err              error
		code             int
		stdout, stderr   string
		stdoutIsTerminal bool
	}{
		{name: "success", err: nil, code: 0},
		{name: "plain error", err: errors.New("lock /p/.ralph/logs/.ralph_loop.lock: no space left on device"), code: 1,
			stderr: "ralph_loop: lock /p/.ralph/logs/.ralph_loop.lock: no space left on device\n"},
		{name: "wrapped error", err: fmt.Errorf("--events %s: %w", "/x/e.jsonl", os.ErrPermission), code: 1,
			stderr: "ralph_loop: --events /x/e.jsonl: permission denied\n"},
		{name: "signal", err: engine.NewSignalError(syscall.SIGINT), code: 130},
		{name: "wrapped signal", err: fmt.Errorf("start: %w", engine.NewSignalError(syscall.SIGHUP)), code: 129},
		{name: "halted run, already explained", err: exitStatus(2), code: 2},
		{name: "exit status 0 is success", err: exitStatus(0), code: 0},
		{name: "lines on stderr", err: &exitError{code: 1, lines: []string{"one", "  two"}}, code: 1,
			stderr: "one\n  two\n"},
		{name: "a bad value: stderr with the prefix, and the bash loop's line on stdout for a script",
			err: &config.UsageError{Key: "--calls", Msg: "Invalid --calls: 'x'"}, code: 1,
			stdout: "Invalid --calls: 'x'\n", stderr: "ralph_loop: Invalid --calls: 'x'\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := exitCode(tc.err, &out, &errOut)
			if code != tc.code {
				t.Errorf("exit code %d, want %d", code, tc.code)
			}
			if diff := cmp.Diff(tc.stdout, out.String()); diff != "" {
				t.Errorf("stdout (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.stderr, errOut.String()); diff != "" {
				t.Errorf("stderr (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRunEndings runs the program in-process for the endings that stop it
// before the loop starts, and checks every byte of both streams and the
// exit code.
func TestRunEndings(t *testing.T) {
	cases := []struct {
		name   string
		args   []string
		env    map[string]string
		setup  func(t *testing.T, dir string)
		code   int
		stdout string
		stderr string // %[1]s is the project directory
	}{
		{name: "no .ralph", code: 1,
			stderr: "ralph_loop: no .ralph here (%[1]s); set it up with 'ralph_loop --init' (in a bmalph project: 'bmalph init'), then run ralph_loop again\n"},
		{name: "old flat layout", code: 1,
			setup: func(t *testing.T, dir string) { writeFile(t, filepath.Join(dir, "PROMPT.md"), "do it\n") },
			stderr: "ralph_loop: This project uses the old flat structure (PROMPT.md at the project root, no .ralph/).\n" +
				"ralph_loop: Move the Ralph files into .ralph/ with 'ralph-migrate' (or 'bmalph init'), then run ralph_loop again.\n"},
		{name: "invalid value", args: []string{"--calls", "many"}, code: 1,
			stdout: "Invalid --calls: 'many'; expected a positive integer\n",
			stderr: "ralph_loop: Invalid --calls: 'many'; expected a positive integer\n"},
		{name: "unknown flag", args: []string{"--bogus"}, code: 1,
			stdout: "Unknown option: --bogus\nUsage: ralph_loop [OPTIONS] (ralph_loop --help-all lists all)\n",
			stderr: "unknown flag --bogus (ralph_loop --help-all lists all)\n"},
		{name: "status unreadable", args: []string{"--status"}, code: 1,
			setup:  func(t *testing.T, dir string) { mkdir(t, filepath.Join(dir, ".ralph", "status.json")) },
			stderr: "ralph_loop: cannot show the status: read %[1]s/.ralph/status.json: is a directory, not a regular file; replace it with a regular file\n"},
		{name: "no status", args: []string{"--status"}, code: 0,
			setup:  func(t *testing.T, dir string) { mkdir(t, filepath.Join(dir, ".ralph")) },
			stdout: "No status file found. Ralph may not be running.\n"},
		{name: "reset under a running loop", args: []string{"--reset-session"}, code: 1,
			setup: func(t *testing.T, dir string) {
				lock, err := ralphdir.New(filepath.Join(dir, ".ralph"), nil).Lock()
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { lock.Unlock() })
			},
			stderr: fmt.Sprintf("ralph_loop: --reset-session refused: a ralph_loop (pid %d) is running in this project (lock %%[1]s/.ralph/logs/.ralph_loop.lock held); stop it first (Ctrl+C where it runs, or kill %d), then run --reset-session again (--status, --circuit-status and --report work while it runs)\n", os.Getpid(), os.Getpid())},
		{name: "no run to report", args: []string{"--report"}, code: 1,
			setup: func(t *testing.T, dir string) {
				mkdir(t, filepath.Join(dir, ".ralph", "logs"))
				writeFile(t, filepath.Join(dir, ".ralph", "logs", "events.jsonl"), "")
			},
			stderr: "ralph_loop: no run to report: %[1]s/.ralph/logs/events.jsonl holds no events\n"},
		{name: "monitor without tmux", args: []string{"--monitor"}, code: 1, env: map[string]string{"PATH": ""},
			stderr: "tmux is not installed. Please install tmux or run without --monitor flag.\nInstall tmux:\n" +
				"  Ubuntu/Debian: sudo apt-get install tmux\n  macOS: brew install tmux\n  CentOS/RHEL: sudo yum install tmux\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			t.Chdir(dir)
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			if tc.setup != nil {
				tc.setup(t, dir)
			}
			lookup := func(k string) (string, bool) { v, ok := tc.env[k]; return v, ok }
			var out, errOut bytes.Buffer
			code := run(tc.args, strings.NewReader(""), &out, &errOut, lookup)
			if code != tc.code {
				t.Errorf("exit code %d, want %d", code, tc.code)
			}
			if diff := cmp.Diff(inDir(tc.stdout, dir), out.String()); diff != "" {
				t.Errorf("stdout (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(inDir(tc.stderr, dir), errOut.String()); diff != "" {
				t.Errorf("stderr (-want +got):\n%s", diff)
			}
		})
	}
}

func inDir(format, dir string) string {
	if !strings.Contains(format, "%[1]s") {
		return format
	}
	return fmt.Sprintf(format, dir)
}

func writeFile(t *testing.T, p, content string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func mkdir(t *testing.T, p string) {
	t.Helper()
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
}
