package console

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ralphloop/ralph_loop/internal/events"
)

// What a notice carries from outside reaches neither the console nor the
// log raw: a log line keeps no control and a message of several lines is
// several stamped lines (the agent cannot forge one of the loop's); the
// console's own colours and the agent's live colours pass.
func TestNoticesMadeSafe(t *testing.T) {
	n := []any{
		warned{events.Warn, errors.New("bad \x1b]52;c;eA==\x07\n[2026-01-01 00:00:00] [SUCCESS] forged")},
		output("\x1b[1;31mred\x1b[0m \x1b]0;title\x07 \x1b[2J"),
		events.Analysed{Loop: 1, Summary: "sum \x1b[H\u202e"},
	}
	var out, errOut strings.Builder
	c := New(&out, &errOut, Options{Colour: true, TTY: true})
	var rec recorder
	log := NewLog(&rec, Options{})
	for _, x := range n {
		show(c, t0, x)
		show(log, t0, x)
	}
	wantLog := logged("WARN bad \\u001b]52;c;eA==\\u0007", "WARN [2026-01-01 00:00:00] [SUCCESS] forged")
	if rec.String() != wantLog {
		t.Errorf("log %q\nwant %q", rec.String(), wantLog)
	}
	if want := yellow + strings.TrimSuffix(strings.SplitAfter(wantLog, "\n")[0], "\n") + reset + "\n"; !strings.HasPrefix(errOut.String(), want) {
		t.Errorf("console log lines %q\nwant first %q", errOut.String(), want)
	}
	for _, want := range []string{"\x1b[1;31mred\x1b[0m \\u001b]0;title\\u0007 \\u001b[2J", "sum \\u001b[H\\u202e"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("console output %q lacks %q", out.String(), want)
		}
	}
	for _, s := range []string{out.String(), errOut.String(), rec.String()} {
		if strings.ContainsAny(s, "\x07\u202e") || strings.Contains(s, "\x1b]") || strings.Contains(s, "\x1b[2J") || strings.Contains(s, "\x1b[H") {
			t.Errorf("a control passed: %q", s)
		}
	}
}

// The Terminal makes every write and redraw safe, and keeps its own
// carriage returns and line erasures.
func TestTerminalMadeSafe(t *testing.T) {
	var sb safeBuffer
	term := NewTerminal(&sb, &sb, true, true, 16)
	term.Stdout().Write([]byte("a\x1b]0;t\x07\x1b[32mb\x1b[0m\n"))
	term.stream(stdoutStream).Redraw("wait \x1b[2J")
	term.Close(time.Minute)
	want := "a\\u001b]0;t\\u0007\x1b[32mb\x1b[0m\n\rwait \\u001b[2J\x1b[K\n"
	if sb.String() != want {
		t.Errorf("got %q\nwant %q", sb.String(), want)
	}
}
