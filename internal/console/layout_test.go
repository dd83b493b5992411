package console

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ralphloop/ralph_loop/internal/events"
)

var t0 = time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)

// logged is the expected stderr of log lines, one "LEVEL msg" a line.
func logged(lines ...string) string {
	var b strings.Builder
	stamp := "[" + t0.Local().Format(events.LocalStamp) + "] "
	for _, l := range lines {
		level, msg, _ := strings.Cut(l, " ")
		b.WriteString(stamp + "[" + level + "] " + msg + "\n")
	}
	return b.String()
}

// render shows ns on a console with o and returns stdout and stderr.
func render(o Options, ns ...any) (string, string) {
	var out, errb bytes.Buffer
	c := New(&out, &errb, o)
	for _, n := range ns {
		show(c, t0, n)
	}
	return out.String(), errb.String()
}

// A report's lines reach the console as bmalph parses them, "[stamp]
// [LEVEL] msg" on stderr, each line of a message a line of its own; the
// words are the values' own (package events' goldens).
func TestLogLines(t *testing.T) {
	tests := []struct {
		n    any
		want []string
	}{
		{events.Logged{Level: events.Success, Text: "100% done %d"}, []string{"SUCCESS 100% done %d"}},
		{events.Logged{Level: events.Warn, Text: "two\nlines"}, []string{"WARN two", "WARN lines"}},
		{warned{events.Warn, errors.New("disk")}, []string{"WARN disk"}},
		{warned{events.Error, errors.New("bad")}, []string{"ERROR bad"}},
		{runStarted{}, []string{"INFO Starting main loop..."}},
		{events.Stalled{Count: 1, Limit: 3}, []string{"WARN Stalled iteration (1 of 3): same reply, no change in git"}},
		{events.Call{Agent: "Codex", Failure: &events.Failure{Code: 2}, StderrTail: "x | y", StderrLog: ".ralph/logs/e.log"}, []string{
			"ERROR ❌ Codex exited: error (exit 2) (code 2)", "ERROR   stderr (last 3 lines): x | y", "ERROR   full stderr log: .ralph/logs/e.log"}},
		{rateLimit{3, 3, 90*time.Second + time.Millisecond}, []string{
			"WARN Rate limit reached (3/3). Waiting for reset...", "INFO Sleeping for 91 seconds until next hour..."}},
		{completion{"plan_complete", 4, 5, 0, events.Evidence{}}, []string{
			"SUCCESS 🎉 Ralph has completed the project! Final stats:", "INFO   - Total loops: 4",
			"INFO   - API calls used: 5", "INFO   - Exit reason: plan_complete",
			"SUCCESS ✅ Completed (plan_complete): no tasks in @fix_plan.md; no quality gates configured"}},
		{stopCondition{events.Stop{Kind: events.StopMaxLoops, Calls: 2, Limit: 2}}, []string{"INFO Max loops reached: stopped after 2 agent calls (--max-loops 2)"}},
		{pause(true), []string{"WARN Paused (ralph_loop --pause). Waiting; run 'ralph_loop --resume' in this project to continue."}},
		{pause(false), []string{"SUCCESS Resumed."}},
		{usageHit{events.UsageWindow{Window: "unknown"}, false}, []string{"WARN 🛑 Usage limit reached; its reset time was not reported"}},
		{events.DriverSwitch{From: "OpenAI Codex", To: "Claude Code", Why: events.SwitchReset}, []string{"SUCCESS 🔁 Claude Code's usage limit has reset: back to Claude Code (from OpenAI Codex)"}},
		{events.BreakerChange{From: "CLOSED", To: "HALF_OPEN", Reason: "no progress"}, []string{"WARN Circuit breaker: CLOSED → HALF_OPEN (no progress)"}},
		// DEBUG lines are hidden unless verbose.
		{events.AgentFound{Agent: "claude", Version: "1.0", Path: "/bin/claude"}, nil},
		{events.AgentWorking{Agent: "Codex", Elapsed: 20 * time.Second}, nil},
		{events.OutputErrors{File: ".ralph/logs/o.log", Errors: []string{"a", "b"}}, []string{"WARN Errors detected in output, check: .ralph/logs/o.log"}},
	}
	for _, tc := range tests {
		_, got := render(Options{}, tc.n)
		if want := logged(tc.want...); got != want {
			t.Errorf("%#v:\n got %q\nwant %q", tc.n, got, want)
		}
	}
}

func TestRenderDebug(t *testing.T) {
	_, got := render(Options{Verbose: true},
		events.AgentFound{Agent: "claude", Version: "1.0", Path: "/bin/claude"},
		events.LoopContext{Text: "ctx"},
		events.FilesChanged{Count: 3},
		events.AgentWorking{Agent: "Codex", Elapsed: 20 * time.Second},
		events.AgentWorking{Agent: "Codex", Last: strings.Repeat("x", 90), Elapsed: 30 * time.Second},
		events.OutputErrors{File: "o.log", Errors: []string{"a", "b"}},
	)
	want := logged("DEBUG claude 1.0 at /bin/claude", "DEBUG Loop context: ctx",
		"DEBUG Detected 3 unique files changed (commits + working tree) since loop start",
		"DEBUG Codex working... (20s elapsed)",
		"DEBUG Codex: "+strings.Repeat("x", 80)+"... (30s)",
		"WARN Errors detected in output, check: o.log", "DEBUG   1: a", "DEBUG   2: b")
	if got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

// Log lines are coloured by level when stderr is a terminal.
func TestRenderColour(t *testing.T) {
	stamp := t0.Local().Format(events.LocalStamp)
	tests := []struct {
		level events.Level
		want  string
	}{
		{events.Info, "\033[0;34m[" + stamp + "] [INFO] msg\033[0m\n"},
		{events.Loop, "\033[0;35m[" + stamp + "] [LOOP] msg\033[0m\n"},
		{events.Error, "\033[0;31m[" + stamp + "] [ERROR] msg\033[0m\n"},
		{events.Success, "\033[0;32m[" + stamp + "] [SUCCESS] msg\033[0m\n"},
		{events.Warn, "\033[1;33m[" + stamp + "] [WARN] msg\033[0m\n"},
	}
	for _, tc := range tests {
		_, got := render(Options{Colour: true}, events.Logged{Level: tc.level, Text: "msg"})
		if got != tc.want {
			t.Errorf("%s: %q, want %q", tc.level, got, tc.want)
		}
	}
}

const (
	boxTop    = "╔════════════════════════════════════════════════════════════╗\n"
	boxBottom = "╚════════════════════════════════════════════════════════════╝"
)

// What goes to the console's output stream: boxes, banners, the live
// output, the usage-limit question; coloured only on a terminal.
func TestRenderOut(t *testing.T) {
	analysed := events.Analysed{Loop: 7, ExitSignal: true, Confidence: 80, FilesChanged: 2,
		Summary: "Summary: Fixed the parser.\n---RALPH_STATUS---\nSTATUS: COMPLETE\n---END_RALPH_STATUS---"}
	box := "║           Response Analysis - Loop #7                      ║\n" + boxBottom + "%s\n" +
		"Exit Signal:      true\nCompletion:       80%%\nTest Only:        false\nFiles Changed:    2\nSummary:          Fixed the parser.\n\n"
	help := events.PermissionHelp{Agent: "Claude Code", Help: []string{"  1. Edit .ralphrc", "  2. Run again"}, ShowTools: true, AllowedTools: []string{"Write", "Bash(git *)"}}
	denied := "║  PERMISSION DENIED - Loop Halted                           ║\n" + boxBottom + "%s\n" +
		"Claude Code was denied permission to execute commands.\n\nTo fix this:\n  1. Edit .ralphrc\n  2. Run again\nCurrent ALLOWED_TOOLS: Write,Bash(git *)\n"
	tests := []struct {
		name string
		n    []any
		tty  bool
		out  string
		err  []string
	}{
		{"analysis box", []any{analysed}, false, boxTop + strings.ReplaceAll(strings.Replace(box, "%s", "", 1), "%%", "%"), nil},
		{"analysis box on a terminal", []any{analysed}, true,
			blue + boxTop + strings.ReplaceAll(strings.Replace(box, "%s", reset, 1), "%%", "%"), nil},
		{"analysis box without summary", []any{events.Analysed{Loop: 1, Summary: "---RALPH_STATUS---\nEXIT_SIGNAL: false"}}, false,
			boxTop + "║           Response Analysis - Loop #1                      ║\n" + boxBottom + "\n" +
				"Exit Signal:      false\nTest Only:        false\nFiles Changed:    0\n\n", nil},
		{"permission box", []any{help}, false, boxTop + strings.Replace(denied, "%s", "", 1), nil},
		{"permission box on a terminal", []any{help}, true, red + boxTop + strings.Replace(denied, "%s", reset, 1), nil},
		{"live", []any{events.LiveStarted{Agent: "Claude Code"}, output("hi\n"), events.LiveEnded}, false,
			"━━━━━━━━━━━━━━━━ Claude Code Output ━━━━━━━━━━━━━━━━\nhi\n\n━━━━━━━━━━━━━━━━ End of Output ━━━━━━━━━━━━━━━━━━━\n",
			[]string{"INFO 📺 Live output mode enabled - showing Claude Code streaming..."}},
		{"live on a terminal", []any{events.LiveStarted{Agent: "Codex"}, events.LiveEnded}, true,
			purple + "━━━━━━━━━━━━━━━━ Codex Output ━━━━━━━━━━━━━━━━" + reset + "\n\n" + purple + "━━━━━━━━━━━━━━━━ End of Output ━━━━━━━━━━━━━━━━━━━" + reset + "\n",
			[]string{"INFO 📺 Live output mode enabled - showing Codex streaming..."}},
		{"breaker report", []any{events.BreakerChange{From: "CLOSED", To: "OPEN", Reason: "r", Report: []string{"a", "b"}}, events.BreakerHalted{Report: []string{"c"}}}, false,
			"a\nb\nc\n", []string{"WARN Circuit breaker: CLOSED → OPEN (r)", "ERROR 🛑 Circuit breaker has opened - execution halted"}},
		{"usage limit question", []any{events.UsageLimitQuestion{Usage: events.UsageWindow{Window: "five_hour"}}, events.UsageLimitNoAnswer}, false,
			"\nThe usage limit of the five_hour window has been reached; its reset time was not reported.\nYou can either:\n  1) Wait for the limit to reset\n  2) Exit the loop and try again later\n\nChoose an option (1 or 2): \n",
			[]string{"INFO No answer within 30 seconds: waiting for the limit to reset."}},
	}
	for _, tc := range tests {
		out, err := render(Options{TTY: tc.tty}, tc.n...)
		if out != tc.out {
			t.Errorf("%s: out\n got %q\nwant %q", tc.name, out, tc.out)
		}
		if want := logged(tc.err...); err != want {
			t.Errorf("%s: err\n got %q\nwant %q", tc.name, err, want)
		}
	}
}

// A countdown is redrawn in place on a terminal; otherwise it shows the
// first tick, then one line a minute, on the console and in the log alike.
func TestRenderCountdown(t *testing.T) {
	// Waiting 125.3 s ticks at 125.3 s, then at every whole second left.
	ticks := []any{events.WaitTick{Kind: "loop_delay", Left: 125*time.Second + 300*time.Millisecond}}
	for left := 125 * time.Second; left > 0; left -= time.Second {
		ticks = append(ticks, events.WaitTick{Kind: "loop_delay", Left: left})
	}
	ticks = append(ticks, events.WaitOver{}, events.WaitTick{Kind: "rate_limit", Left: 3 * time.Second}, events.WaitOver{})

	out, err := render(Options{}, ticks...)
	if out != "" {
		t.Errorf("out %q", out)
	}
	want := logged("INFO Next loop in: 00:02:05", "INFO Next loop in: 00:01:05", "INFO Next loop in: 00:00:05", "INFO Time until reset: 00:00:03")
	if err != want {
		t.Errorf("err\n got %q\nwant %q", err, want)
	}
	var rec recorder
	log := NewLog(&rec, Options{})
	for _, n := range ticks {
		show(log, t0, n)
	}
	if got := rec.String(); got != want {
		t.Errorf("log\n got %q\nwant %q", got, want)
	}

	out, err = render(Options{TTY: true}, events.WaitTick{Kind: "failure_backoff", Left: 2 * time.Second},
		events.WaitTick{Kind: "failure_backoff", Left: time.Second}, events.WaitOver{},
		events.WaitTick{Kind: "usage_limit", Left: time.Hour}, events.WaitOver{})
	wantOut := "\r\033[1;33mRetrying in: 00:00:02\033[0m\033[K\r\033[1;33mRetrying in: 00:00:01\033[0m\033[K\n" +
		"\r\033[1;33mTime until retry: 01:00:00\033[0m\033[K\n"
	if out != wantOut || err != "" {
		t.Errorf("terminal: out %q err %q\nwant out %q", out, err, wantOut)
	}
	rec = recorder{}
	log = NewLog(&rec, Options{TTY: true})
	show(log, t0, events.WaitTick{Kind: "idle_backoff", Left: time.Second})
	if rec.String() != "" {
		t.Errorf("log of a terminal countdown %q", rec.String())
	}
}

type recorder struct{ b strings.Builder }

func (r *recorder) Line(ts time.Time, level events.Level, msg string) {
	r.b.WriteString("[" + ts.Local().Format(events.LocalStamp) + "] [" + string(level) + "] " + msg + "\n")
}

func (r *recorder) String() string { return r.b.String() }

// The log gets the log lines only, never the console's output stream.
func TestLogSkipsOut(t *testing.T) {
	var rec recorder
	log := NewLog(&rec, Options{TTY: true})
	for _, n := range []any{events.Analysed{Loop: 1}, events.LiveStarted{Agent: "A"}, output("x"), events.LiveEnded, events.FilesChanged{Count: 1}} {
		show(log, t0, n)
	}
	if want := logged("INFO 📺 Live output mode enabled - showing A streaming..."); rec.String() != want {
		t.Errorf("got %q\nwant %q", rec.String(), want)
	}
}
