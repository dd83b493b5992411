package notify

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ralphloop/ralph_loop/internal/events"
	"github.com/ralphloop/ralph_loop/internal/supervise"
)

func TestHookEnv(t *testing.T) {
	m := testMessage(t)
	m.event.RunID = "2026-11-25T00:00:00+00:00"
	m.event.BreakerState = "CLOSED"
	m.event.TasksCompleted, m.event.TasksTotal = 2, 2
	m.event.Totals.CostUSD = 0.25
	want := []string{
		"RALPH_EVENT=run_finished", "RALPH_NOTIFY=run_finished", "RALPH_TEXT=ralph_loop [demo]: Ralph has completed the project",
		"RALPH_PROJECT=demo", "RALPH_PROJECT_DIR=/p", "RALPH_RUN_ID=2026-11-25T00:00:00+00:00", "RALPH_LOOP=2",
		"RALPH_STATUS=", "RALPH_REASON=plan_complete", "RALPH_BREAKER_STATE=CLOSED", "RALPH_TASKS_COMPLETED=2",
		"RALPH_TASKS_TOTAL=2", "RALPH_COST_USD=0.25", "RALPH_EXIT_REASON=plan_complete", "RALPH_EXIT_CODE=0",
	}
	if diff := cmp.Diff(want, hookEnv(m, "demo", "/p")); diff != "" {
		t.Errorf("env (-want +got):\n%s", diff)
	}
	// Only run_finished has an exit reason and code.
	m.event = events.Event{Type: events.BreakerChanged, From: "CLOSED", To: "OPEN", Reason: "no progress"}
	m.name = breakerOpened
	env := hookEnv(m, "demo", "/p")
	for _, kv := range []string{"RALPH_EVENT=breaker_changed", "RALPH_NOTIFY=breaker_opened", "RALPH_REASON=no progress", "RALPH_EXIT_REASON=", "RALPH_EXIT_CODE="} {
		if !strings.Contains(strings.Join(env, "\n")+"\n", kv+"\n") {
			t.Errorf("env lacks %q: %q", kv, env)
		}
	}
}

// A real hook: the event's JSON on stdin, the variables in its
// environment, its output kept for the hooks log, its exit code judged.
func TestCommandHook(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "hook.sh")
	body := "#!/bin/sh\ncat > stdin.json\necho \"event $RALPH_EVENT in $PWD\"\nexit ${HOOK_RC:-0}\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	c := &command{argv: []string{script}, env: []string{"PATH=" + os.Getenv("PATH")}, dir: dir, project: "demo", timeout: 10 * time.Second, label: "command", stdin: true}
	m := testMessage(t)
	report, err := c.send(context.Background(), m)
	if err != nil || report != "    event run_finished in "+dir {
		t.Fatalf("send = %q, %v", report, err)
	}
	got, _ := os.ReadFile(filepath.Join(dir, "stdin.json"))
	if string(got) != string(m.json)+"\n" {
		t.Errorf("stdin %q, want the event's JSON line", got)
	}
	c.env = append(c.env, "HOOK_RC=3")
	if _, err := c.send(context.Background(), m); err == nil || err.Error() != "exit 3" {
		t.Errorf("a hook that exits 3: %v", err)
	}
	if c.String() != "command "+script {
		t.Errorf("String = %q", c.String())
	}
}

func TestOutcomeError(t *testing.T) {
	for _, tc := range []struct {
		o    supervise.Outcome
		want string
	}{
		{supervise.Outcome{Reason: supervise.Exited}, ""},
		{supervise.Outcome{Reason: supervise.Exited, ExitCode: 2}, "exit 2"},
		{supervise.Outcome{Reason: supervise.TimedOut, ExitCode: 124}, "timed out after 10s (NOTIFY_TIMEOUT)"},
		{supervise.Outcome{Reason: supervise.Canceled}, "stopped: still running when the loop exited"},
		{supervise.Outcome{Reason: supervise.OutputTooLarge}, "stopped: printed more than 1048576 bytes"},
		{supervise.Outcome{Reason: supervise.StartFailed, ExitCode: 127, Err: errors.New("start hook: executable file not found in $PATH")}, "start hook: executable file not found in $PATH"},
	} {
		got := ""
		if err := outcomeError(tc.o, 10*time.Second); err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("outcomeError(%+v) = %q, want %q", tc.o, got, tc.want)
		}
	}
}

// The hook is handed to supervise with its timeout, a short grace, an
// output cap and the project as its working directory.
func TestCommandOptions(t *testing.T) {
	var gotC supervise.Command
	var gotO supervise.Options
	c := &command{argv: []string{"hook"}, dir: "/p", timeout: 7 * time.Second, label: "command", stdin: true,
		run: func(_ context.Context, c supervise.Command, o supervise.Options) supervise.Outcome {
			gotC, gotO = c, o
			return supervise.Outcome{Reason: supervise.TimedOut, ExitCode: 124}
		}}
	_, err := c.send(context.Background(), testMessage(t))
	if err == nil || err.Error() != "timed out after 7s (NOTIFY_TIMEOUT)" {
		t.Errorf("err %v", err)
	}
	if gotC.Dir != "/p" || gotO.Timeout != 7*time.Second || gotO.Grace != stopGrace || gotO.MaxOutput != maxOutput || !gotO.Combined || !strings.HasPrefix(gotC.Stdin, `{"v":1,`) {
		t.Errorf("command %+v, options %+v", gotC, gotO)
	}
}

func TestKeep(t *testing.T) {
	k := &keep{max: 8}
	_, _ = k.Write([]byte("one\r\ntwo\nthree"))
	if got, want := k.report(), "    one\n    two\n    [... 6 more bytes not kept]"; got != want {
		t.Errorf("report %q, want %q", got, want)
	}
	if (&keep{max: 8}).report() != "" {
		t.Error("no output is not an empty report")
	}
}

func TestDesktopArgv(t *testing.T) {
	have := func(names ...string) func(string) (string, error) {
		return func(n string) (string, error) {
			for _, h := range names {
				if h == n {
					return "/bin/" + n, nil
				}
			}
			return "", errors.New("not found")
		}
	}
	for _, tc := range []struct {
		goos  string
		tools []string
		want  []string
	}{
		{"linux", []string{"notify-send"}, []string{"/bin/notify-send", "--app-name=ralph_loop", "T", "X"}},
		{"freebsd", []string{"notify-send"}, []string{"/bin/notify-send", "--app-name=ralph_loop", "T", "X"}},
		{"darwin", []string{"osascript"}, []string{"/bin/osascript", "-e", "on run argv", "-e", "display notification (item 2 of argv) with title (item 1 of argv)", "-e", "end run", "T", "X"}},
		{"windows", []string{"pwsh.exe"}, []string{"/bin/pwsh.exe", "-NoProfile", "-NonInteractive", "-Command", windowsNotice}},
		{"linux", nil, nil},
		{"darwin", []string{"notify-send"}, nil},
	} {
		argv := desktopArgv(tc.goos, have(tc.tools...))
		var got []string
		if argv != nil {
			got = argv("T", "X")
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s with %v (-want +got):\n%s", tc.goos, tc.tools, diff)
		}
	}
}
