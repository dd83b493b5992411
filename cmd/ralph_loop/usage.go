package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/ralphloop/ralph_loop/internal/config"
)

// helpLayout lists the flags in the order --help shows them, under their
// groups (config.Groups). A flag it does not place comes last in its
// group: a new setting's flag (its key's row) or a command's (its file).
// The bash loop's flags are common, so --help still names each of them.
var helpLayout = []string{
	"help", "help-all", "version", "calls", "prompt", "status", "monitor", "verbose", "live", "timeout",
	"reset-circuit", "circuit-status", "auto-reset-circuit", "reset-session",

	"driver", "output-format", "allowed-tools", "no-continue", "session-expiry", "sandbox", "fallback-driver",

	"max-loops", "delay", "done-pattern", "completion-mode", "goal", "check", "inactivity-timeout", "max-output-mb", "log-keep", "log-max-mb",
	"retry-max-delay", "outage-max", "max-cost", "max-tokens", "swarm", "events",

	"notify-on", "notify-command", "notify-webhook", "notify-desktop",

	"init", "doctor", "dry-run", "report", "pause", "resume", "answer", "json", "run", "clean", "keep", "analyze", "notify-test",

	"dashboard", "serve", "projects",
}

// helpFlags are every flag in help order.
func helpFlags() []*flagSpec {
	out := make([]*flagSpec, 0, len(flagsByName()))
	placed := map[string]bool{}
	for _, name := range helpLayout {
		f := flagsByName()[name]
		if f == nil {
			panic("ralph_loop: helpLayout places --" + name + ", which no setting or command declares") // a bug in the tables
		}
		out = append(out, f)
		placed[name] = true
	}
	for _, f := range allFlags() {
		if !placed[f.Long] {
			out = append(out, f)
		}
	}
	return out
}

// usageOf is how the flag is written in the help: "-c, --calls NUM".
func usageOf(f config.Flag) string {
	s := "--" + f.Long
	if f.Short != "" {
		s = "-" + f.Short + ", " + s
	} else {
		s = "    " + s
	}
	switch {
	case f.Arg != "" && f.Optional:
		s += " [" + f.Arg + "]"
	case f.Arg != "":
		s += " " + f.Arg
	}
	return s
}

const (
	helpWidth  = 80
	helpColumn = 30 // where the meaning starts
)

// wrap cuts text into lines of at most width columns, at spaces.
func wrap(text string, width int) []string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(text) {
		if line != "" && len([]rune(line))+1+len([]rune(w)) > width {
			lines = append(lines, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	return append(lines, line)
}

// writeFlags writes the flags of every group; all=false keeps the common
// ones.
func writeFlags(w io.Writer, all bool) {
	pad := strings.Repeat(" ", helpColumn)
	flags := helpFlags()
	for _, g := range config.Groups {
		var rows []*flagSpec
		for _, f := range flags {
			if f.Group == g && (all || f.Common) {
				rows = append(rows, f)
			}
		}
		if len(rows) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n%s:\n", g)
		for _, f := range rows {
			head := "  " + usageOf(f.Flag)
			text := wrap(f.Help, helpWidth-helpColumn)
			if len([]rune(head)) >= helpColumn-1 {
				fmt.Fprintln(w, head)
			} else {
				fmt.Fprintf(w, "%-*s%s\n", helpColumn, head, text[0])
				text = text[1:]
			}
			for _, l := range text {
				fmt.Fprintln(w, pad+l)
			}
		}
	}
}

// usage writes the --help text: the common options and where the rest
// are; with all, the --help-all text: every option.
func usage(w io.Writer, all bool) {
	fmt.Fprint(w, "ralph_loop - run an AI coding agent again and again until the project's plan\nis done\n\nUsage: ralph_loop [OPTIONS]\n\n")
	for _, l := range wrap("To start, in your project's root: set it up with "+config.SetupHint+
		", write the plan in .ralph/@fix_plan.md, then run 'ralph_loop'.", helpWidth) {
		fmt.Fprintln(w, l)
	}
	writeFlags(w, all)
	if !all {
		fmt.Fprint(w, `
Every option: ralph_loop --help-all. Every setting: docs/CONFIG.md.
`)
		return
	}
	fmt.Fprint(w, `
DURATION is 30s, 5m, 6h, 1d or a plain number of seconds. Each option has a
.ralphrc key and an environment variable as well (docs/CONFIG.md).
Precedence: option > environment > .ralph/.ralphrc > built-in default.

Files it keeps in .ralph/:
  logs/                 one log per agent call, plus ralph.log and events.jsonl
  status.json           current state, read by bmalph and --status
  .ralph_session        session lifecycle (.ralph_session_history: last 50)
  .call_count, .last_reset  calls made in the current hour

Examples:
  bmalph run                           # let bmalph start the loop
  ralph_loop --calls 50 --prompt my_prompt.md
  ralph_loop --live --verbose          # watch the agent work, with more detail
  ralph_loop --monitor --timeout 30    # tmux view, 30 minutes per call
  ralph_loop --no-continue             # no session carried between loops
  ralph_loop --max-loops 10 --delay 30s
  ralph_loop --driver codex --analyze .ralph/logs/claude_output_LOOP.log
`)
}
