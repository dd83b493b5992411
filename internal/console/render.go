package console

import (
	"fmt"
	"strings"
	"time"

	"github.com/ralphloop/ralph_loop/breaker"
	"github.com/ralphloop/ralph_loop/internal/clip"
	"github.com/ralphloop/ralph_loop/internal/events"
)

// Options say how notices are shown.
type Options struct {
	// Colour: log lines are coloured by level (stderr is a terminal).
	Colour bool
	// TTY: the console's output stream is a terminal. Boxes are coloured
	// and a wait shows a countdown redrawn in place; otherwise a wait
	// shows one INFO line a minute, in logs/ralph.log too, as the bash
	// loop does.
	TTY bool
	// NoColour (NO_COLOR set): the boxes are drawn without colour even
	// on a terminal.
	NoColour bool
	// Verbose shows DEBUG lines.
	Verbose bool
	// Width, when set, is the terminal's width in columns, asked before
	// each box is shown: a box or banner wider than that is redrawn to
	// fit (a tmux pane). Nil or 0 keeps the 62-column boxes.
	Width func() int
	// ResetCommand is what closes an OPEN circuit by hand where the loop
	// was started ("" for breaker.DefaultResetCommand).
	ResetCommand string
}

// part is one piece of a rendered notice: a log line (level set), text
// for the console's output stream, or a countdown redraw.
type part struct {
	level  events.Level
	text   string
	redraw bool // text replaces the pending redrawn line
	end    bool // ends the pending redrawn line
	clear  bool // erases the pending redrawn line, if any
}

// renderer turns notices into parts. It keeps one piece of state: where
// the current wait's once-a-minute line was last shown.
type renderer struct {
	o        Options
	marked   bool          // a line of the current wait was shown
	lastMark time.Duration // the time left when it was
}

// ANSI colours of the boxes and banners, as the bash loop's.
const (
	red    = "\033[0;31m"
	yellow = "\033[1;33m"
	blue   = "\033[0;34m"
	purple = "\033[0;35m"
	reset  = "\033[0m"
)

// c is code on a terminal, else "": a log file or bmalph's pipe gets
// plain text, and so does a terminal under NO_COLOR.
func (r *renderer) c(code string) string {
	if r.o.TTY && !r.o.NoColour {
		return code
	}
	return ""
}

// line is a log line, formatted as by fmt.Sprintf.
func line(level events.Level, format string, args ...any) part {
	return part{level: level, text: fmt.Sprintf(format, args...)}
}

// text is a log line of a text composed elsewhere.
func text(level events.Level, s string) part { return part{level: level, text: s} }

// out is text for the console's output stream, formatted as by
// fmt.Sprintf.
func out(format string, args ...any) part { return part{text: fmt.Sprintf(format, args...)} }

// render is the one place where a notice becomes words: here for the
// notices that need the renderer's options or state, in the groups below
// for the rest, one short case per notice type.
func (r *renderer) render(n events.Notice) []part {
	switch n := n.(type) {
	case events.Logged:
		return []part{{level: n.Level, text: n.Text}}
	case events.Phrase:
		return r.phrase(n)
	case events.WaitTick:
		return r.tick(n)
	case events.WaitOver:
		r.marked = false
		if r.o.TTY {
			return []part{{end: true}}
		}
		return nil
	case events.Analysed:
		return r.analysed(n)
	case events.PermissionHelp:
		return r.permissionHelp(n)
	}
	for _, group := range []func(events.Notice) []part{runNotices, waitNotices, r.callNotices, resultNotices, gateNotices, startNotices, r.agentTick} {
		if p := group(n); p != nil {
			return p
		}
	}
	return nil
}

// runNotices renders the notices of the run's start and end.
func runNotices(n events.Notice) []part {
	switch n := n.(type) {
	case events.Starting:
		var p []part
		if n.IgnoredTools {
			p = append(p, line(events.Warn, "ALLOWED_TOOLS/--allowed-tools is ignored by %s.", n.Agent))
		}
		return append(p,
			line(success, "🚀 Ralph loop starting with %s", n.Agent),
			line(events.Info, "Max calls per hour: %d", n.MaxCalls),
			line(events.Info, "Logs: %s/ | Docs: %s/ | Status: %s", n.LogsDir, n.DocsDir, n.Status))
	case events.StartupFailed:
		return startupFailed(n)
	case events.TempFilesRemoved:
		return []part{line(events.Info, "Removed %d temp file(s) left by an interrupted write", n.Count)}
	case events.AgentFound:
		if n.From == "" {
			return []part{line(debug, "%s %s at %s", n.Agent, n.Version, n.Path)}
		}
		return []part{line(debug, "%s %s at %s (from %s)", n.Agent, n.Version, n.Path, n.From)}
	case events.LoopMark:
		if n.Done {
			return []part{line(loopLevel, "=== Completed Loop #%d ===", n.Loop)}
		}
		return []part{line(loopLevel, "=== Starting Loop #%d ===", n.Loop)}
	case events.Interrupted:
		if n.Blocked {
			return []part{line(events.Info, "Ralph loop interrupted by %s while blocked. Exiting without waiting.", n.Signal)}
		}
		return []part{line(events.Info, "Ralph loop interrupted by %s. Cleaning up...", n.Signal)}
	case events.BreakerHalted:
		p := outLines(n.Report)
		return append(p, line(events.Error, "🛑 Circuit breaker has opened - execution halted"))
	case events.GracefulExit:
		return []part{line(success, "🏁 Graceful exit triggered: %s", n.Reason)}
	case events.Stalled:
		return []part{line(events.Warn, "Stalled iteration (%d of %d): same reply, no change in git", n.Count, n.Limit)}
	}
	return nil
}

// waitNotices renders the notices of the waits between calls.
func waitNotices(n events.Notice) []part {
	switch n := n.(type) {
	case events.CallWindowReset:
		return []part{text(events.Info, newHourLine(n.Hour))}
	case events.UsageLimitQuestion:
		return []part{out("\nThe usage limit%s has been reached; %s.\nYou can either:\n  1) Wait for the limit to reset\n  2) Exit the loop and try again later\n\nChoose an option (1 or 2): ", ofWindow("of", n.Usage), resetWords(n.Usage))}
	case events.UsageLimitWait:
		return []part{line(events.Info, "Waiting %s before retrying (until %s)...", roundWait(n.Wait), n.Until.Local().Format("15:04:05"))}
	case events.WaitSkipped:
		return []part{line(events.Info, "Wait skipped (Ctrl+C). Starting the next call in %d s — press Ctrl+C again to stop.", int(n.Window.Seconds()))}
	case events.QuestionCarried:
		return questionCarried(n)
	}
	return nil
}

// outageLimit says when an outage stops the run.
func outageLimit(max time.Duration) string {
	if max <= 0 {
		return "no OUTAGE_MAX: waiting as long as it takes"
	}
	return "stops at OUTAGE_MAX=" + max.String()
}

// roundWait rounds a wait for a person: to the minute, or to the second
// under a minute.
func roundWait(d time.Duration) time.Duration {
	if d < time.Minute {
		return d.Round(time.Second)
	}
	return d.Round(time.Minute)
}

// callNotices renders the notices of one agent call while it runs.
func (r *renderer) callNotices(n events.Notice) []part {
	switch n := n.(type) {
	case events.CallStarting:
		return []part{
			line(loopLevel, "Executing %s (Call %d/%d%s)", n.Agent, n.Call, n.MaxCalls, retryWords(n.Retry)),
			line(events.Info, "⏳ Starting %s execution... (timeout: %dm)", n.Agent, int(n.Timeout.Minutes()))}
	case events.LoopContext:
		return []part{line(debug, "Loop context: %s", n.Text)}
	case events.CLIMode:
		return []part{line(events.Info, "Using modern CLI mode (%s output)", n.Format)}
	case events.NoLiveStreaming:
		return []part{line(events.Warn, "%s does not support structured live streaming. Falling back to background mode.", n.Agent)}
	case events.LiveStarted:
		return []part{
			line(events.Info, "📺 Live output mode enabled - showing %s streaming...", n.Agent),
			out("%s━━━━━━━━━━━━━━━━ %s Output ━━━━━━━━━━━━━━━━%s\n", r.c(purple), n.Agent, r.c(reset))}
	case events.WriteTimeoutClamped:
		return []part{line(events.Warn, "WRITE_TIMEOUT_MINUTES (%d) >= CLAUDE_TIMEOUT_MINUTES (%d), using %d", int(n.Write.Minutes()), int(n.Timeout.Minutes()), int(n.Used.Minutes()))}
	case events.OutputNotStored:
		return []part{text(events.Error, notStored(n.Err, n.DiskFull))}
	}
	return nil
}

// resultNotices renders the notices of a call's result and its analysis.
func resultNotices(n events.Notice) []part {
	switch n := n.(type) {
	case events.AgentSucceeded:
		return []part{line(success, "✅ %s execution completed successfully", n.Agent)}
	case events.Analysing:
		return []part{line(events.Info, "🔍 Analyzing %s response...", n.Agent)}
	case events.FilesChanged:
		return []part{line(debug, "Detected %d unique files changed (commits + working tree) since loop start", n.Count)}
	case events.OutputErrors:
		p := []part{line(events.Warn, "Errors detected in output, check: %s", n.File)}
		for i, l := range n.Lines {
			p = append(p, line(debug, "  %d: %s", i+1, l))
		}
		return p
	case events.UnknownState:
		return []part{line(events.Info, "Agent reported unknown state %q (ignored)", n.Name)}
	case events.DoneMatched:
		return []part{line(success, "Done pattern %q matched the agent's reply", n.Pattern)}
	case events.NoWrites:
		return []part{line(events.Warn, "Write heartbeat: no file modifications in %dm", int(n.After.Minutes()))}
	case events.PermissionDenied:
		if n.Halt {
			return []part{line(events.Error, "🚫 Permission denied - halting loop")}
		}
		return []part{
			line(events.Warn, "🚫 Permission denied in loop #%d: %s", n.Loop, n.Commands),
			line(events.Warn, "PERMISSION_DENIAL_MODE=%s - continuing execution", n.Mode)}
	}
	return nil
}

// phrases are the fixed lines; a phrase shown on the console's output
// stream has no level.
var phrases = map[events.Phrase][]part{
	events.RateLimitReset:        {{level: success, text: callWindowReset}},
	events.LiveNeedsJSON:         {{level: events.Warn, text: "Live mode requires JSON output format. Overriding text → json for this session."}},
	events.GateBlocksCompletion:  {{level: events.Warn, text: "Quality gate block: suppressing completion signals"}},
	events.GateWithholdsProgress: {{level: events.Warn, text: "Quality gate circuit-breaker: overriding progress signals"}},
	events.DenialsNotCleared:     {{level: events.Warn, text: "Failed to clear permission denial markers from response analysis"}},
	events.UsageLimitNoAnswer: {
		{text: "\n"},
		{level: events.Info, text: "No answer within 30 seconds: waiting for the limit to reset."}},
	events.StreamKept:          {{level: events.Info, text: "Keeping full stream output for shared response analysis"}},
	events.StreamResultInvalid: {{level: events.Warn, text: "Final result record was invalid JSON, keeping full stream output"}},
	events.StreamCollapsed:     {{level: events.Info, text: "Collapsed streamed response to the final result record"}},
}

func (r *renderer) phrase(p events.Phrase) []part {
	switch p {
	case events.LiveEnded:
		return []part{out("\n%s━━━━━━━━━━━━━━━━ End of Output ━━━━━━━━━━━━━━━━━━━%s\n", r.c(purple), r.c(reset))}
	}
	return phrases[p]
}

// outLines is lines on the console's output stream, one part each.
func outLines(lines []string) []part {
	p := make([]part, 0, len(lines))
	for _, l := range lines {
		p = append(p, part{text: l + "\n"})
	}
	return p
}

// waitLabels name each wait's countdown.
var waitLabels = map[string]string{
	"loop_delay":      "Next loop in",
	"idle_backoff":    "Idle; next iteration in",
	"failure_backoff": "Retrying in",
	"outage_backoff":  "Provider outage; next try in",
	"rate_limit":      "Time until reset",
	"usage_limit":     "Time until retry",
	"question":        "Waiting for your answer (ralph_loop --answer); time left",
	"usage_soft":      "Usage window resets in",
}

// tick is a wait's countdown: redrawn in place on a terminal; otherwise
// the first tick and then one a minute as an INFO line (for bmalph's
// dashboard or a log file). The minute is measured on the time left, so
// the console and logs/ralph.log pick the same ticks.
func (r *renderer) tick(t events.WaitTick) []part {
	text := waitLabels[t.Kind] + ": " + clock(t.Left)
	if r.o.TTY {
		return []part{{text: yellow + text + reset, redraw: true}}
	}
	if r.marked && r.lastMark-t.Left < time.Minute {
		return nil
	}
	r.marked, r.lastMark = true, t.Left
	return []part{{level: events.Info, text: text}}
}

// clock renders d as HH:MM:SS, rounded to the nearest second (a wait
// shorter than half a second shows 00:00:00).
func clock(d time.Duration) string {
	s := int(d.Round(time.Second).Seconds())
	return fmt.Sprintf("%02d:%02d:%02d", s/3600, s%3600/60, s%60)
}

// analysed is the Response Analysis box.
func (r *renderer) analysed(a events.Analysed) []part {
	p := []part{
		out("%s╔════════════════════════════════════════════════════════════╗\n", r.c(blue)),
		out("║           Response Analysis - Loop #%-23d║\n", a.Loop),
		out("╚════════════════════════════════════════════════════════════╝%s\n", r.c(reset)),
		out("Exit Signal:      %v\n", a.ExitSignal),
	}
	// Completion is how sure the analysis is that the agent says it is done
	// (100 with an exit signal, 80 for an explicit EXIT_SIGNAL: false, the
	// text heuristics' score otherwise); 0 measured nothing, and is not shown.
	if a.Confidence > 0 {
		p = append(p, out("Completion:       %d%%\n", a.Confidence))
	}
	p = append(p,
		out("Test Only:        %v\n", a.TestOnly),
		out("Files Changed:    %d\n", a.FilesChanged),
	)
	if sum := boxSummary(a.Summary); sum != "" {
		p = append(p, out("Summary:          %s\n", clip.Bytes(sum, 200)))
	}
	return append(p, out("\n"))
}

// permissionHelp is the box shown when a permission denial halts the
// run.
func (r *renderer) permissionHelp(h events.PermissionHelp) []part {
	p := []part{
		out("%s╔════════════════════════════════════════════════════════════╗\n║  PERMISSION DENIED - Loop Halted                           ║\n╚════════════════════════════════════════════════════════════╝%s\n", r.c(red), r.c(reset)),
		out("%s was denied permission to execute commands.\n\nTo fix this:\n", h.Agent),
	}
	p = append(p, outLines(h.Help)...)
	if h.ShowTools {
		p = append(p, out("Current ALLOWED_TOOLS: %s\n", strings.Join(h.AllowedTools, ",")))
	}
	return p
}

// startupFailed is the ERROR lines of a failed start-up check: what is
// wrong, and what to do about it.
func startupFailed(f events.StartupFailed) []part {
	if f.Err != nil {
		return []part{line(events.Error, "%v", f.Err)}
	}
	var lines []string
	switch f.Check {
	case events.PromptMissing:
		// One line: what is missing and how to fix it (issue 41). The
		// bash loop's words lead it ("Prompt file '…' not found", "missing
		// …"), as its callers match them.
		if f.Restore != "" {
			lines = []string{"Prompt file '" + f.Path + "' not found: this bmalph/Ralph project is missing " + f.Restore +
				"; create it (the instructions the agent gets each loop), or run ralph_loop --init (in a bmalph project: bmalph init) to write the default one"}
		} else {
			lines = []string{"Prompt file '" + f.Path + "' not found: this directory is not a bmalph/Ralph project; run ralph_loop --init (or bmalph init) here to set one up, or change to a Ralph project's directory"}
		}
	case events.GitMissing:
		lines = []string{"git is not installed or not on PATH. Install git (e.g. apt-get install git) and retry."}
	case events.NoGitRepo:
		lines = []string{"No git repository found in " + f.Path + ".",
			"Ralph tracks progress with git. Create one with: git init && git add -A && git commit -m 'initial commit'"}
	case events.NoCommits:
		lines = []string{"Git repository has no commits.",
			"Ralph compares each loop's changes against HEAD. Make a first commit: git add -A && git commit -m 'initial commit'"}
	case events.NoAgentCommand:
		lines = []string{`PLATFORM_DRIVER=command needs AGENT_COMMAND (e.g. AGENT_COMMAND="my-agent --flag" in .ralph/.ralphrc)`}
	}
	p := make([]part, 0, len(lines))
	for _, l := range lines {
		p = append(p, text(events.Error, l))
	}
	return p
}

// resetCommand is the command that closes an OPEN circuit by hand.
func (r *renderer) resetCommand() string {
	if r.o.ResetCommand != "" {
		return r.o.ResetCommand
	}
	return breaker.DefaultResetCommand
}
