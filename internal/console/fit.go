package console

import (
	"strings"

	"github.com/ralphloop/ralph_loop/internal/clip"
	"github.com/ralphloop/ralph_loop/internal/lazyre"
)

// Boxes and banners are drawn 62 columns wide, as the bash loop draws
// them. On a narrower terminal (a tmux pane) a line that long wraps and
// the box falls apart, so fitBoxes redraws each box and banner line that
// does not fit at the terminal's width; every other line is left as it is
// (the terminal wraps long text lines well enough). Widths are display
// columns (clip.Width): a wide character or an emoji takes two.

var (
	leadingSGR  = lazyre.Compile(`^(\x1b\[[0-9;]*m)+`)
	trailingSGR = lazyre.Compile(`(\x1b\[[0-9;]*m)+$`)
)

// minFitWidth is the narrowest width a box is redrawn for: below it a
// box is beyond saving and is left as drawn.
const minFitWidth = 12

// FitBoxes is text with every box or banner line wider than width
// columns redrawn to width columns, as the console draws them on a
// terminal of that width: for a command that prints a box itself
// (--circuit-status).
func FitBoxes(text string, width int) string { return fitBoxes(text, width) }

// fitBoxes returns text with every box or banner line wider than width
// columns redrawn to width columns; colour codes around a line are kept.
func fitBoxes(text string, width int) string {
	if width < minFitWidth || !strings.ContainsAny(text, "╔║╚━") {
		return text
	}
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		lead := leadingSGR().FindString(l)
		trail := trailingSGR().FindString(l[len(lead):])
		body := l[len(lead) : len(l)-len(trail)]
		if clip.Width(body) <= width {
			continue
		}
		if fitted, ok := fitLine(body, width); ok {
			lines[i] = lead + fitted + trail
		}
	}
	return strings.Join(lines, "\n")
}

// fitLine redraws one box or banner line at width columns; ok is false
// for any other line.
func fitLine(l string, width int) (string, bool) {
	switch {
	case edges(l, "╔", "╗") && strings.Trim(l[len("╔"):len(l)-len("╗")], "═") == "":
		return "╔" + strings.Repeat("═", width-2) + "╗", true
	case edges(l, "╚", "╝") && strings.Trim(l[len("╚"):len(l)-len("╝")], "═") == "":
		return "╚" + strings.Repeat("═", width-2) + "╝", true
	case edges(l, "║", "║"):
		return "║" + fitInside(l[len("║"):len(l)-len("║")], width-2) + "║", true
	case edges(l, "━", "━"):
		return banner(strings.Trim(l, "━ "), width), true
	}
	return "", false
}

func edges(l, first, last string) bool {
	return len(l) >= len(first)+len(last) && strings.HasPrefix(l, first) && strings.HasSuffix(l, last)
}

// fitInside is the text of a box line in n columns: a title indented by
// more than two spaces stays centred, other text keeps its indent; text
// too long for the box is cut with "…".
func fitInside(inside string, n int) string {
	text := strings.TrimSpace(inside)
	indent := len(inside) - len(strings.TrimLeft(inside, " "))
	size := clip.Width(text)
	if size > n {
		text = clip.Columns(text, n)
		size = clip.Width(text) // one less than n when a wide character did not fit
	}
	if indent > 2 {
		indent = (n - size) / 2
	}
	indent = min(indent, n-size)
	return strings.Repeat(" ", indent) + text + strings.Repeat(" ", n-size-indent)
}

// banner is a "━━━ label ━━━" line of width columns.
func banner(label string, width int) string {
	size := clip.Width(label)
	if size+4 > width {
		return clip.Columns(label, width)
	}
	left := (width - size - 2) / 2
	return strings.Repeat("━", left) + " " + label + " " + strings.Repeat("━", width-size-2-left)
}
