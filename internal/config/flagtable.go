package config

import (
	"fmt"
	"io"
	"strings"
)

// flagDef is one flag of the command line: how it is written, what it does
// and where the help shows it. The parser (newFlagSet), --help, --help-all
// and README's flag table are all made from flagDefs. A flag that sets a
// key is declared in that key's row (keySpec.flag) and shows the key's
// default, never a copy of it.
type flagDef struct {
	long, short string
	arg         string // the value's name in the help ("NUM"); "" for a switch
	optional    bool   // the value may be left out (--serve [ADDR])
	group       string // the heading it is listed under
	common      bool   // --help lists it; --help-all lists every flag
	help        string // what it does: one or two sentences, wrapped to fit
	noDefault   bool   // the key's default is too long to show here
	doc         string // the doc that tells more, linked from README's table
	// negate: the switch sets its key to false (--no-continue).
	negate bool
	set    *keySpec // the key the flag sets, nil for a command's flag
}

// Flag groups, in the order the help shows them.
const (
	groupMain     = "Options"
	groupAgent    = "Agent"
	groupLoop     = "Loop control"
	groupNotify   = "Notifications (docs/NOTIFY.md)"
	groupCommands = "Commands"
	groupWeb      = "Web dashboard (docs/DASHBOARD.md)"
)

var flagGroups = []string{groupMain, groupAgent, groupLoop, groupNotify, groupCommands, groupWeb}

// flagLayout lists the flags in the order the help shows them. A key's
// flag is declared in the key's row and only placed here, with at; a key
// flag this list does not place comes last in its group. The bash loop's
// flags are common, so --help still names each of them.
var flagLayout = []flagDef{
	{long: "help", short: "h", group: groupMain, common: true, help: "show the common options and exit"},
	{long: "help-all", group: groupMain, common: true, help: "show every option and exit"},
	{long: "version", group: groupMain, common: true, help: "print the version and exit"},
	at("calls"),
	at("prompt"),
	{long: "status", doc: "STATUS.md", short: "s", group: groupMain, common: true, help: "print status.json and a summary (--json: one object), exit"},
	{long: "monitor", short: "m", group: groupMain, common: true, help: "run inside tmux next to a live status view (needs tmux)"},
	at("verbose"),
	{long: "live", short: "l", group: groupMain, common: true, help: "stream the agent's output as it works (uses JSON output)"},
	at("timeout"),
	{long: "reset-circuit", group: groupMain, common: true, help: "close the circuit breaker, reset the session, and exit"},
	{long: "circuit-status", group: groupMain, common: true, help: "show the circuit breaker's state and exit"},
	at("auto-reset-circuit"),
	{long: "reset-session", group: groupMain, common: true, help: "forget the agent session and exit"},

	at("driver"),
	at("output-format"),
	at("allowed-tools"),
	at("no-continue"),
	at("session-expiry"),
	at("sandbox"),
	at("fallback-driver"),

	at("max-loops"),
	at("delay"),
	at("done-pattern"),
	at("completion-mode"),
	at("goal"),
	at("check"),
	at("inactivity-timeout"),
	at("max-output-mb"),
	at("log-keep"),
	at("log-max-mb"),
	at("retry-max-delay"),
	at("outage-max"),
	at("max-cost"),
	at("max-tokens"),
	at("swarm"),
	at("events"),

	at("notify-on"),
	at("notify-command"),
	at("notify-webhook"),
	at("notify-desktop"),

	{long: "init", group: groupCommands, common: true, help: "set up .ralph/ here (PROMPT.md, @fix_plan.md, @AGENT.md, .ralphrc, specs/) where missing, and exit"},
	{long: "doctor", doc: "DOCTOR.md", group: groupCommands, common: true, help: "check this project is ready to run unattended, and exit"},
	{long: "dry-run", doc: "DRY-RUN.md", group: groupCommands, common: true, help: "run the start-up checks, show the next agent call and exit; calls no agent and writes nothing"},
	{long: "report", doc: "EVENTS.md", group: groupCommands, common: true, help: "summarise the runs so far and exit"},
	{long: "pause", doc: "LOOP-CONTROL.md", group: groupCommands, help: "ask the running loop to pause, and exit"},
	{long: "resume", group: groupCommands, help: "let a paused loop go on, and exit"},
	{long: "json", group: groupCommands, help: "with --report, --status or --dry-run: print JSON"},
	{long: "run", arg: "ID", group: groupCommands, help: "with --report: that run alone"},
	{long: "clean", group: groupCommands, help: "remove the logs of old agent calls (beyond LOG_KEEP) and the rotated logs; print what was freed"},
	{long: "keep", arg: "N", group: groupCommands, help: "with --clean: keep the logs of the last N calls instead"},
	{long: "analyze", arg: "FILE", group: groupCommands, help: "analyse a saved agent output file and exit (--driver tells which agent wrote it)"},
	{long: "notify-test", group: groupCommands, help: "with --doctor: send a test notification to each notifier"},

	{long: "dashboard", doc: "DASHBOARD.md", arg: "ADDR", optional: true, group: groupWeb, common: true, help: "run the loop and serve its dashboard on ADDR (default: SERVE_ADDR, 127.0.0.1:8765)"},
	{long: "serve", arg: "ADDR", optional: true, group: groupWeb, help: "serve the dashboard of this project's loop, running or finished, without running it"},
	{long: "projects", arg: "DIR...", group: groupWeb, help: "with --serve: one row per project (or per worktree of a folder of worktrees)"},
}

// SetupHint is the one way to set up a project, as --help, the README, the
// error messages and --doctor say it.
const SetupHint = "'ralph_loop --init' (in a bmalph project: 'bmalph init')"

// at places the flag of the key whose row declares --long.
func at(long string) flagDef { return flagDef{long: long} }

// flagDefs is every flag in help order, and flagByName the same by long name.
var (
	flagDefs   = layoutFlags(flagLayout, keys)
	flagByName = indexFlags(flagDefs)
)

// layoutFlags puts each key's flag where layout places it (or last in its
// group), tied to its key.
func layoutFlags(layout []flagDef, ks []*keySpec) []flagDef {
	byLong := map[string]*keySpec{}
	for _, k := range ks {
		if k.flag != nil {
			byLong[k.flag.long] = k
		}
	}
	out := make([]flagDef, 0, len(layout)+len(byLong))
	for _, f := range layout {
		if f.group == "" { // placed with at
			k := byLong[f.long]
			if k == nil {
				panic("config: flagLayout places --" + f.long + ", which no key declares") // a bug in the tables
			}
			f = *k.flag
			f.set = k
			delete(byLong, f.long)
		}
		out = append(out, f)
	}
	for _, k := range ks {
		if k.flag == nil {
			continue
		}
		if _, left := byLong[k.flag.long]; left {
			f := *k.flag
			f.set = k
			out = append(out, f)
		}
	}
	return out
}

func indexFlags(fs []flagDef) map[string]*flagDef {
	m := make(map[string]*flagDef, len(fs))
	for i := range fs {
		m[fs[i].long] = &fs[i]
	}
	return m
}

// usage is how the flag is written in the help: "-c, --calls NUM".
func (f flagDef) usage() string {
	s := "--" + f.long
	if f.short != "" {
		s = "-" + f.short + ", " + s
	} else {
		s = "    " + s
	}
	switch {
	case f.arg != "" && f.optional:
		s += " [" + f.arg + "]"
	case f.arg != "":
		s += " " + f.arg
	}
	return s
}

// text is what the help says of the flag: its meaning and, for a flag that
// sets a key, that key's built-in default.
func (f flagDef) text() string {
	t := f.help
	if k := f.set; k != nil && f.arg != "" && !f.noDefault && k.def != "" {
		def := strings.ReplaceAll(k.def, ",", ", ") // a list wraps at its commas
		if k.path {
			def = ".ralph/" + def
		}
		t += " (default: " + def + ")"
	}
	return t
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

// writeFlags writes the flags of the given groups; all=false keeps the
// common ones.
func writeFlags(w io.Writer, all bool) {
	pad := strings.Repeat(" ", helpColumn)
	for _, g := range flagGroups {
		var rows []flagDef
		for _, f := range flagDefs {
			if f.group == g && (all || f.common) {
				rows = append(rows, f)
			}
		}
		if len(rows) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n%s:\n", g)
		for _, f := range rows {
			head := "  " + f.usage()
			text := wrap(f.text(), helpWidth-helpColumn)
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

// Usage writes the --help text: the common options and where the rest
// are; with all, the --help-all text: every option.
func Usage(w io.Writer, all bool) {
	fmt.Fprint(w, "ralph_loop - run an AI coding agent again and again until the project's plan\nis done\n\nUsage: ralph_loop [OPTIONS]\n\n")
	for _, l := range wrap("To start, in your project's root: set it up with "+SetupHint+
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
