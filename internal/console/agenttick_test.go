package console

import (
	"strings"
	"testing"
	"time"

	"github.com/ralphloop/ralph_loop/internal/events"
)

type lineList []string

func (l *lineList) Line(_ time.Time, level events.Level, msg string) {
	*l = append(*l, string(level)+" "+msg)
}

// TestAgentTick: the ticking line is redrawn in place on a terminal and
// cleared at the end of the call; a pipe and logs/ralph.log never get it.
func TestAgentTick(t *testing.T) {
	working := events.CallTick{Agent: "OpenAI Codex", Elapsed: 65 * time.Second, Bytes: 12634, Tool: "command\x1b]0;pwned\x07_execution\n"}
	cases := []struct {
		name string
		o    Options
		want string
	}{
		{"terminal", Options{TTY: true},
			"\r⏳ OpenAI Codex working: 00:01:05, 12.3 KB of output, last tool: command]0;pwned_execution\033[K" + eraseLine},
		{"narrow terminal", Options{TTY: true, Width: func() int { return 30 }},
			"\r⏳ OpenAI Codex working: 00:…\033[K" + eraseLine},
		{"pipe", Options{}, ""},
	}
	for _, c := range cases {
		var out, errs strings.Builder
		con := New(&out, &errs, c.o)
		var logged lineList
		log := NewLog(&logged, c.o)
		for _, n := range []any{working, events.CallTickOver{}} {
			show(con, time.Time{}, n)
			show(log, time.Time{}, n)
		}
		if out.String() != c.want || errs.Len() != 0 {
			t.Errorf("%s: stdout %q stderr %q, want %q", c.name, out.String(), errs.String(), c.want)
		}
		if len(logged) != 0 {
			t.Errorf("%s: ralph.log got %q", c.name, logged)
		}
	}
}

// TestTerminalClearsTickingLine: on a Terminal the ticking line is erased
// whole before the next line, which starts at the start of a screen line;
// a call too short to tick leaves nothing to erase.
func TestTerminalClearsTickingLine(t *testing.T) {
	var out, errs strings.Builder
	term := NewTerminal(&out, &errs, true, true, 16)
	con := New(term.Stdout(), term.Stderr(), Options{TTY: true})
	show(con, time.Time{}, events.CallTickOver{}) // nothing drawn yet
	show(con, time.Time{}, events.CallTick{Agent: "A", Elapsed: time.Second, Bytes: 3})
	show(con, time.Time{}, events.CallTickOver{})
	show(con, time.Time{}, events.Logged{Level: events.Success, Text: "done"})
	term.Close(time.Second)
	want := "\r⏳ A working: 00:00:01, 3 B of output\033[K" + eraseLine
	if out.String() != want || !strings.HasSuffix(errs.String(), "] [SUCCESS] done\n") {
		t.Errorf("stdout %q, want %q; stderr %q", out.String(), want, errs.String())
	}
}
