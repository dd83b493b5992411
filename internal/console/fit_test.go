package console

import (
	"strings"
	"testing"
	"time"

	"github.com/ralphloop/ralph_loop/breaker"
	"github.com/ralphloop/ralph_loop/internal/clip"
	"github.com/ralphloop/ralph_loop/internal/events"
)

// wideBox is a box as a later notice might draw it, with wide characters
// (two columns each) and an emoji in it: 62 columns on every line.
var wideBox = []string{
	"╔════════════════════════════════════════════════════════════╗",
	"║           日本語の状態 🚨 Status                           ║",
	"║  Ünïcödé and 中文 text, and a long line cut with care: ✅  ║",
	"╚════════════════════════════════════════════════════════════╝",
}

// everyBox is every box and banner the console draws, with the breaker's
// boxes as the breaker writes them (its status box and EXECUTION HALTED),
// and a box with wide characters.
func everyBox() []any {
	open := breaker.State{State: breaker.Open, Reason: "No progress detected in 3 consecutive loops", ConsecutiveNoProgress: 3}
	return []any{
		events.LiveStarted{Agent: "Claude Code"},
		output("a line of the agent's output\n"),
		events.LiveEnded,
		events.Analysed{Loop: 12, Confidence: 80, Summary: "Did it."},
		events.Analysed{Loop: 123456789},
		events.PermissionHelp{Agent: "Claude Code", Help: []string{"  1. Edit .ralphrc"}},
		events.BreakerHalted{Report: breaker.Halted(open, t0, breaker.Config{NoProgressThreshold: 3, Cooldown: 30 * time.Minute})},
		events.BreakerHalted{Report: wideBox},
	}
}

// squareBoxes fails t unless each box in out (╔ to ╚) has all its lines as
// wide as its top border in display columns, and, for width > 0, none
// wider than width; banner lines are no wider than width either. It
// returns how many boxes there were.
func squareBoxes(t *testing.T, out string, width int) int {
	t.Helper()
	var box []string
	n := 0
	for _, l := range strings.Split(out, "\n") {
		l = trailingSGR().ReplaceAllString(leadingSGR().ReplaceAllString(l, ""), "")
		if width > 0 && strings.HasPrefix(l, "━") && clip.Width(l) > width {
			t.Errorf("width %d: a banner of %d columns: %q", width, clip.Width(l), l)
		}
		switch {
		case strings.HasPrefix(l, "╔"):
			box = []string{l}
			continue
		case box == nil:
			continue
		}
		box = append(box, l)
		if !strings.HasPrefix(l, "╚") {
			continue
		}
		top := clip.Width(box[0])
		for _, b := range box {
			if w := clip.Width(b); w != top || width > 0 && w > width {
				t.Errorf("width %d: a line of %d columns in a box %d wide:\n%s", width, w, top, strings.Join(box, "\n"))
				break
			}
		}
		n++
		box = nil
	}
	return n
}

// Every box is square at every width: as drawn (62 columns, as the bash
// loop draws them) where the width is unknown or wide enough, and redrawn
// to the terminal's width on a narrower one (a tmux pane), wide
// characters counted as two columns; none wraps, and the words inside
// stay where they fit.
func TestEveryBoxIsSquare(t *testing.T) {
	for _, width := range []int{0, 200, 63, 62, 61, 50, 40, 13, 12} {
		for _, tty := range []bool{false, true} {
			o := Options{TTY: tty}
			if width > 0 {
				o.Width = func() int { return width }
			}
			out, _ := render(o, everyBox()...)
			if n := squareBoxes(t, out, width); n != 6 {
				t.Errorf("width %d: %d boxes, want 6:\n%s", width, n, out)
			}
			if width < 40 {
				continue
			}
			for _, words := range []string{"Response Analysis - Loop #12", "PERMISSION DENIED - Loop Halted", "Claude Code Output", "End of Output", "EXECUTION HALTED", "Circuit Breaker Status", "日本語の状態 🚨 Status"} {
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
		// wide characters take two columns; one that would straddle the
		// edge is left out and the line padded instead
		{"║  日本語        ║", "║  日本語║"},
		{"║  日本語の状態  ║", "║ 日本語…║"},
		{"║   状態 🚨      ║", "║状態 🚨 ║"},
		{"║  ab 🚨🚨🚨🚨   ║", "║ab 🚨🚨…║"},
		{"━━ 日本語 ━━━━━━", "━ 日本語 ━"},
	} {
		got, ok := fitLine(tc.in, 10)
		if !ok || got != tc.want || clip.Width(got) > 10 {
			t.Errorf("fitLine(%q, 10) = %q, %v; want %q", tc.in, got, ok, tc.want)
		}
	}
	if _, ok := fitLine("plain text that is long", 10); ok {
		t.Error("a plain line was taken for a box")
	}
}
