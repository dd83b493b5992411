//go:build unix

package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/ralphloop/ralph_loop/internal/fakeagent"
)

// keepScript: the first call ticks a task and names its session
// (sess-1); the second one hangs until it is stopped.
func keepScript() fakeagent.Script {
	return fakeagent.Script{Default: fakeagent.Reply{Hang: true}, Calls: map[int]fakeagent.Reply{1: tickScript().Default}}
}

// TestKeepSessionOnStop: with KEEP_SESSION_ON_STOP=true in .ralphrc, a
// stop by Ctrl+C at a terminal or by SIGTERM keeps the agent's session:
// .claude_session_id and .ralph_session still name sess-1, ralph.log has
// no "Session reset" but "Session kept for the next run: sess-1...", and
// the next run resumes sess-1. Without the key
// the bash loop's reset stays (TestSignalStopsLoopAndAgent checks it).
func TestKeepSessionOnStop(t *testing.T) {
	cases := []struct {
		name   string
		tty    bool // Ctrl+C typed at the terminal; else SIGTERM to the group
		code   int
		reason string
	}{
		{"Ctrl+C at a terminal", true, 130, "SIGINT"},
		{"SIGTERM to the group", false, 143, "SIGTERM"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := newLoopProject(t, 3, keepScript())
			mustWrite(t, p.path(".ralph/.ralphrc"), "KEEP_SESSION_ON_STOP=true\n")
			cmd := p.command(t, nil)
			var console bytes.Buffer
			var term *os.File
			copied := make(chan struct{})
			if tc.tty {
				cmd.SysProcAttr = nil // pty.Start makes the session and the controlling terminal
				f, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: 160, Rows: 45})
				if err != nil {
					t.Fatal(err)
				}
				term = f
				defer f.Close()
				go func() { io.Copy(&console, f); close(copied) }()
			} else {
				cmd.Stdout, cmd.Stderr = &console, &console
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				close(copied)
			}
			started := filepath.Join(p.agent, "calls", "2.started")
			if !waitFor(20*time.Second, func() bool { _, err := os.Stat(started); return err == nil }) {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("agent call 2 was not started within 20 s")
			}
			if tc.tty {
				if _, err := term.Write([]byte{0x03}); err != nil { // Ctrl+C: the terminal sends SIGINT
					t.Fatal(err)
				}
			} else if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			cmd.Wait()
			select {
			case <-copied:
			case <-time.After(5 * time.Second):
			}
			if code := cmd.ProcessState.ExitCode(); code != tc.code {
				t.Errorf("exit code = %d, want %d\n%s", code, tc.code, console.String())
			}
			if !strings.Contains(console.String(), "interrupted by "+tc.reason) {
				t.Errorf("the console does not say the loop was interrupted by %s:\n%s", tc.reason, console.String())
			}
			if b, err := os.ReadFile(p.path(".ralph/.claude_session_id")); err != nil || strings.TrimSpace(string(b)) != "sess-1" {
				t.Errorf(".claude_session_id = %q, %v; want sess-1 kept", b, err)
			}
			sess := readJSONMap(t, p.path(".ralph/.ralph_session"))
			if _, reset := sess["reset_reason"]; reset {
				t.Errorf(".ralph_session = %v: reset, want it kept", sess)
			}
			log, _ := os.ReadFile(p.path(".ralph/logs/ralph.log"))
			if bytes.Contains(log, []byte("Session reset")) {
				t.Errorf("ralph.log says the session was reset:\n%s", log)
			}
			// The keep is said, as a reset is (issue 41).
			const kept = "[INFO] Session kept for the next run: sess-1... (KEEP_SESSION_ON_STOP=true)"
			if !bytes.Contains(log, []byte(kept)) || !strings.Contains(console.String(), "Session kept for the next run: sess-1...") {
				t.Errorf("ralph.log or the console does not say %q:\n%s\n--- console:\n%s", kept, log, console.String())
			}

			// The next run resumes the kept session.
			if err := (fakeagent.Script{Default: tickScript().Default}).Write(p.agent); err != nil {
				t.Fatal(err)
			}
			next := p.command(t, nil, "--max-loops", "1")
			if out, err := next.CombinedOutput(); err != nil && next.ProcessState.ExitCode() != 0 && !strings.Contains(string(out), "max-loops") {
				t.Fatalf("next run: %v\n%s", err, out)
			}
			argv, err := fakeagent.Argv(p.agent, 3)
			if err != nil {
				t.Fatal(err)
			}
			if i := slices.Index(argv, "--resume"); i < 0 || i+1 >= len(argv) || argv[i+1] != "sess-1" {
				t.Errorf("the next run's call did not resume sess-1; argv:\n%s", argv)
			}
		})
	}
}
