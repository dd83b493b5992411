package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/ralphloop/ralph_loop/internal/readmodel"
)

// The loop's pane gets the caller's whole environment, whatever the
// names, with the pane's own terminal variables.
func TestPaneEnv(t *testing.T) {
	caller := []string{"PATH=/caller/bin", "MY_VAR=it's a b", "DEMO_AGENT_DELAY=2", "AWS_PROFILE=dev",
		"TERM=xterm-256color", "TMUX=/tmp/old,1,0", "COLUMNS=200", "ODD.NAME=x"}
	pane := []string{"PATH=/server/bin", "TERM=tmux-256color", "TMUX=/tmp/tmux-0/default,2,0", "TMUX_PANE=%3", "SERVER_ONLY=1"}
	got := paneEnv(caller, pane)
	want := []string{"PATH=/caller/bin", "MY_VAR=it's a b", "DEMO_AGENT_DELAY=2", "AWS_PROFILE=dev", "ODD.NAME=x",
		"TERM=tmux-256color", "TMUX=/tmp/tmux-0/default,2,0", "TMUX_PANE=%3"}
	if !slices.Equal(got, want) {
		t.Fatalf("paneEnv =\n %q\nwant\n %q", got, want)
	}
}

func TestLoopArgs(t *testing.T) {
	got := loopArgs([]string{"-m", "--calls", "5", "--live", "--allowed-tools", "Bash(git *)"})
	want := []string{"--live", "--calls", "5", "--allowed-tools", "Bash(git *)"}
	if !slices.Equal(got, want) {
		t.Fatalf("loopArgs = %q, want %q", got, want)
	}
}

// Below 120 columns the panes are stacked, so the loop's pane has the
// whole width; the loop's pane always keeps room for a 62-column box.
func TestChooseLayout(t *testing.T) {
	for _, tc := range []struct {
		cols, rows        int
		stacked           bool
		status, loopSpace int
	}{
		{80, 24, true, 9, 14},
		{119, 40, true, 9, 30},
		{100, 15, true, 5, 9},
		{120, 40, false, 48, 71},
		{200, 50, false, 80, 119},
	} {
		l := chooseLayout(tc.cols, tc.rows)
		if l.stacked != tc.stacked || l.status != tc.status || l.loopSize() != tc.loopSpace {
			t.Errorf("%dx%d: stacked %v status %d loop %d; want %v %d %d", tc.cols, tc.rows, l.stacked, l.status, l.loopSize(), tc.stacked, tc.status, tc.loopSpace)
		}
		if !l.stacked && l.loopSize() < 62 {
			t.Errorf("%dx%d: the loop pane is %d columns", tc.cols, tc.rows, l.loopSize())
		}
	}
}

// The status pane is the --status summary (never status.json), wrapped
// under its values to the pane's width and cut to its height.
func TestStatusScreen(t *testing.T) {
	total := 3
	v := &readmodel.View{}
	v.State.Phase = "running"
	v.State.PID = 4242
	v.Progress.Loop = 3
	v.Progress.Task = "- [ ] Write the parser for the configuration file format, with tests for every key"
	v.Progress.TasksCompleted, v.Progress.TasksTotal = 1, total
	v.Calls.ThisHour, v.Calls.Max, v.Calls.NextReset = 2, 100, "03:00:00"
	now := time.Date(2026, 11, 25, 2, 0, 0, 0, time.Local)
	lines := statusScreen(v, now, 50, 24)
	text := strings.Join(lines, "\n")
	for _, want := range []string{"Status at 02:00:00", "State:     running (pid 4242), loop 3", "Tasks:     1/3 done", "Calls:     2/100 this hour"} {
		if !strings.Contains(text, want) {
			t.Errorf("missing %q in\n%s", want, text)
		}
	}
	if strings.Contains(text, "{") || strings.Contains(text, "Summary:") {
		t.Errorf("not the summary alone:\n%s", text)
	}
	for _, l := range lines {
		if utf8.RuneCountInString(l) > 50 {
			t.Errorf("line wider than the pane: %q", l)
		}
	}
	if !strings.Contains(text, "\n"+statusIndent+"configuration") && !strings.Contains(text, "\n"+statusIndent+"the") {
		t.Errorf("the task line is not wrapped under its value:\n%s", text)
	}
	if got := statusScreen(v, now, 50, 3); len(got) != 3 {
		t.Errorf("3 rows: %d lines", len(got))
	}
}

func TestWrapLine(t *testing.T) {
	got := wrapLine("  Task:      one two three four five six seven", 30, statusIndent)
	want := []string{"  Task:      one two three", statusIndent + "four five six", statusIndent + "seven"}
	if !slices.Equal(got, want) {
		t.Errorf("wrapLine = %q, want %q", got, want)
	}
	long := wrapLine("  Task:      "+strings.Repeat("x", 40), 30, statusIndent)
	for _, l := range long {
		if len(l) > 30 {
			t.Errorf("line over 30: %q", l)
		}
	}
}

func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{
		"/usr/bin/ralph_loop": "/usr/bin/ralph_loop",
		"--calls":             "--calls",
		"a b":                 "'a b'",
		"it's":                `'it'\''s'`,
		"Bash(git *)":         "'Bash(git *)'",
		"":                    "''",
	} {
		if got := shellQuote(in); got != want {
			t.Errorf("shellQuote(%q) = %s, want %s", in, got, want)
		}
	}
}

// The spec holds the caller's environment: only its owner may read it,
// and the pane removes it as it reads it.
func TestPaneSpecRoundTrip(t *testing.T) {
	p := filepath.Join(t.TempDir(), ".monitor-x.json")
	want := loopPaneSpec{Exe: "/bin/ralph_loop", Args: []string{"--live"}, Env: []string{"MY_VAR=a\nb", "K=it's"}, Dir: "/p", Exit: "/p/x.exit", Tmux: "/usr/bin/tmux", Close: "window"}
	if err := writePaneSpec(p, want); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(p); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("spec file mode: %v %v", st, err)
	}
	got, err := readPaneSpec(p)
	if err != nil || !slices.Equal(got.Env, want.Env) || got.Exe != want.Exe || got.Exit != want.Exit {
		t.Fatalf("readPaneSpec = %+v, %v", got, err)
	}
	if _, err := os.Stat(p); !os.IsNotExist(err) {
		t.Errorf("the spec is still there: %v", err)
	}
	if _, err := readPaneSpec(p); err == nil || !strings.Contains(err.Error(), "ralph_loop --monitor") {
		t.Errorf("a missing spec: %v", err)
	}
	if err := writePaneSpec(p, loopPaneSpec{Env: []string{strings.Repeat("x", monitorSpecCap)}}); err == nil {
		t.Error("an environment over the cap was written")
	}
}

func TestExitCodeOf(t *testing.T) {
	if got := exitCodeOf(exec.Command("sh", "-c", "exit 4").Run(), io.Discard); got != 4 {
		t.Errorf("exit 4: %d", got)
	}
	if got := exitCodeOf(exec.Command("sh", "-c", "kill -TERM $$").Run(), io.Discard); got != 143 {
		t.Errorf("killed by SIGTERM: %d", got)
	}
	if got := exitCodeOf(exec.Command("/nonexistent/ralph_loop").Run(), io.Discard); got != 1 {
		t.Errorf("not started: %d", got)
	}
}

// The exit code is written for a --monitor that waits for it; once it
// stopped waiting (a detach, Ctrl+C) nothing is left behind.
func TestReportExit(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, ".monitor-x.exit")
	reportExit(p, 4, io.Discard)
	if code, ok := readExitCode(p); !ok || code != 4 {
		t.Fatalf("readExitCode = %d, %v", code, ok)
	}
	os.Remove(p)
	unwatched(p)
	reportExit(p, 2, io.Discard)
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("left behind: %v", entries)
	}
	reportExit(p, 2, io.Discard)
	unwatched(p) // too late: the code came first
	if _, err := os.Stat(p + unwatchedSuffix); err == nil {
		t.Error("a marker beside an exit code")
	}
}

// --monitor giving up (a detach) and the loop's pane reporting its code at
// the same moment leave nothing behind, whatever the order of their steps.
func TestReportExitRacesADetach(t *testing.T) {
	dir := t.TempDir()
	for i := range 300 {
		p := filepath.Join(dir, fmt.Sprintf(".monitor-%d.exit", i))
		var both sync.WaitGroup
		both.Go(func() { reportExit(p, 0, io.Discard) })
		both.Go(func() {
			unwatched(p)
			os.Remove(p) // as --monitor does as it returns
		})
		both.Wait()
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("%d files left behind by 300 detaches, such as %s", len(entries), entries[0].Name())
	}
}

// Without tmux, Windows gets one line that points to --live; other systems
// keep the bash loop's install hints.
func TestNoTmux(t *testing.T) {
	var ee *exitError
	if !errors.As(noTmux("windows"), &ee) || ee.code != 1 || len(ee.lines) != 1 || !strings.Contains(ee.lines[0], "--live") {
		t.Errorf("noTmux(windows) = %#v, want one line naming --live, exit 1", ee)
	}
	if !errors.As(noTmux("linux"), &ee) || ee.code != 1 || ee.lines[0] != "tmux is not installed. Please install tmux or run without --monitor flag." {
		t.Errorf("noTmux(linux) = %#v, want the bash loop's lines", ee)
	}
}
