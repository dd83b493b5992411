//go:build unix

package main

import (
	"flag"
	"regexp"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/ralphloop/ralph_loop/internal/clip"
)

func init() { extraCmds["boxes"] = cmdBoxes }

// terminalCodes are the escape sequences a terminal acts on without
// drawing (colours, cursor moves, line erasure) and the carriage return.
var terminalCodes = regexp.MustCompile(`\x1b\[[0-9;?]*[A-Za-z]|\r`)

// boxes [-width N] [-min N] FILE: every box in FILE (a run's output as
// the terminal got it; stdout: the last command's) is drawn square: each of its lines, from its ╔ top
// border to its ╚ bottom one, takes as many display columns (clip.Width:
// two for a wide character or an emoji) as the top border, and, with
// -width, no more than N. At least -min boxes (default 1) are there.
func cmdBoxes(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("boxes: no negation")
	}
	fs := flag.NewFlagSet("boxes", flag.ContinueOnError)
	width := fs.Int("width", 0, "")
	least := fs.Int("min", 1, "")
	if err := fs.Parse(args); err != nil || fs.NArg() != 1 {
		ts.Fatalf("usage: boxes [-width N] [-min N] FILE")
	}
	data := ts.ReadFile(fs.Arg(0)) // "stdout" and "stderr": the last command's
	var box []string
	found := 0
	for _, l := range strings.Split(terminalCodes.ReplaceAllString(data, ""), "\n") {
		switch {
		case strings.HasPrefix(l, "╔"):
			box = []string{l}
			continue
		case box == nil:
			continue
		}
		box = append(box, l)
		if !strings.HasPrefix(l, "║") && !strings.HasPrefix(l, "╚") {
			ts.Fatalf("box not closed before %q:\n%s", l, strings.Join(box, "\n"))
		}
		if !strings.HasPrefix(l, "╚") {
			continue
		}
		top := clip.Width(box[0])
		for _, b := range box {
			if w := clip.Width(b); w != top {
				ts.Fatalf("a box line of %d columns in a box %d wide:\n%s", w, top, strings.Join(box, "\n"))
			}
		}
		if *width > 0 && top > *width {
			ts.Fatalf("a box %d columns wide on a terminal of %d:\n%s", top, *width, strings.Join(box, "\n"))
		}
		found++
		box = nil
	}
	if found < *least {
		ts.Fatalf("%d boxes in %s, want at least %d", found, fs.Arg(0), *least)
	}
	ts.Logf("%d boxes, each square", found)
}
