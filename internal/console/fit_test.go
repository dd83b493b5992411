package console

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ralphloop/ralph_loop/internal/events"
)

// On a terminal narrower than a box (a tmux pane), every box and banner
// line is redrawn to the terminal's width: none wraps, and the words
// inside stay. Plain text lines are left for the terminal to wrap.
func TestBoxesFitTheTerminal(t *testing.T) {
	notices := []any{
		events.LiveStarted{Agent: "Claude Code"},
		output("a line of the agent's output\n"),
		events.LiveEnded,
		events.Analysed{Loop: 12, Confidence: 80, Summary: "Did it."},
		events.PermissionHelp{Agent: "Claude Code", Help: []string{"  1. Edit .ralphrc"}},
		events.BreakerHalted{Report: []string{
			"╔════════════════════════════════════════════════════════════╗",
			"║  EXECUTION HALTED: Circuit Breaker Opened                 ║",
			"╚════════════════════════════════════════════════════════════╝",
		}},
	}
	for _, width := range []int{40, 50, 61} {
		for _, tty := range []bool{false, true} {
			out, _ := render(Options{TTY: tty, Width: func() int { return width }}, notices...)
			for _, l := range strings.Split(out, "\n") {
				l = trailingSGR.ReplaceAllString(leadingSGR.ReplaceAllString(l, ""), "")
				n := utf8.RuneCountInString(l)
				if strings.ContainsAny(l, "━") && n > width || strings.ContainsAny(l, "╔║╚") && n != width {
					t.Errorf("width %d: a box line of %d columns: %q", width, n, l)
				}
			}
			for _, words := range []string{"Response Analysis - Loop #12", "PERMISSION DENIED - Loop Halted", "Claude Code Output", "End of Output", "EXECUTION HALTED"} {
				if !strings.Contains(out, words) {
					t.Errorf("width %d: %q lost:\n%s", width, words, out)
				}
			}
		}
	}
}

// Boxes that fit (a wide terminal, no width known) are drawn exactly as
// always.
func TestBoxesUnchangedWhenTheyFit(t *testing.T) {
	n := []any{events.Analysed{Loop: 3}, events.LiveStarted{Agent: "Codex"}, events.LiveEnded}
	want, _ := render(Options{TTY: true}, n...)
	for _, w := range []func() int{nil, func() int { return 0 }, func() int { return 62 }, func() int { return 200 }} {
		if got, _ := render(Options{TTY: true, Width: w}, n...); got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	}
}

func TestFitLine(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"╔══════════════╗", "╔════════╗"},
		{"╚══════════════╝", "╚════════╝"},
		{"║   Title      ║", "║ Title  ║"},
		{"║  ab          ║", "║  ab    ║"},
		{"║  a long text ║", "║a long …║"},
		{"━━━━ X Y ━━━━", "━━ X Y ━━━"},
		{"━━ a long label ━━", "a long la…"},
	} {
		got, ok := fitLine(tc.in, 10)
		if !ok || got != tc.want {
			t.Errorf("fitLine(%q, 10) = %q, %v; want %q", tc.in, got, ok, tc.want)
		}
	}
	if _, ok := fitLine("plain text that is long", 10); ok {
		t.Error("a plain line was taken for a box")
	}
}
