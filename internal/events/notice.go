package events

import (
	"fmt"
	"strings"
	"time"

	"github.com/ralphloop/ralph_loop/internal/clip"
)

// Notice is something the loop tells the person watching it that belongs
// to no happening of its own (observe.Observer.Said): a log line, a box, a
// countdown tick. The engine says notices as typed values
// (observe.Fan.Note); each knows its own words (Lines), and package
// console lays them out, for the terminal and for logs/ralph.log alike, so
// the wording and level of every line live with the value they say.
type Notice interface {
	// Lines are the notice's words, in the order they are shown.
	Lines() []Line
}

// QuestionCarried: a question an earlier run left open is taken up: its
// answer goes into the first call (Answered), or the loop waits for it
// before that call. Question is the agent's text.
type QuestionCarried struct {
	Question string
	Loop     int
	Answered bool
}

// Logged is a line whose text was composed outside the engine: by the
// command line (configuration warnings), by ralphdir (a quarantined
// file), by a leaf package that owns its own wording (session, review,
// fixplan, the exit decision, an agent probe). The engine never builds
// the text of a Logged notice itself.
type Logged struct {
	Level Level
	Text  string
}

func (n Logged) Lines() []Line { return []Line{logText(n.Level, n.Text)} }

// Phrase is a notice without values: one fixed line (or a fixed piece of
// console output), named for what happened.
type Phrase uint8

// The phrases.
const (
	RateLimitReset        Phrase = iota + 1 // SUCCESS, the wait for the next hour is over
	LiveNeedsJSON                           // WARN, live mode switched text output to json
	LiveEnded                               // console: the end of the live output
	GateBlocksCompletion                    // WARN, a quality gate withholds the exit signals
	GateWithholdsProgress                   // WARN, a circuit-breaker gate withholds progress
	DenialsNotCleared                       // WARN, the permission denial markers stay
	UsageLimitNoAnswer                      // console + INFO, no answer in time: wait
	StreamKept                              // INFO, the whole stream stays in the output log
	StreamResultInvalid                     // WARN, the final result record was not JSON
	StreamCollapsed                         // INFO, the output log keeps the final result only

	lastPhrase = StreamCollapsed // the tests say every phrase up to it
)

func (p Phrase) Lines() []Line {
	switch p {
	case RateLimitReset:
		return []Line{logText(Success, callWindowReset)}
	case LiveNeedsJSON:
		return []Line{logText(Warn, "Live mode requires JSON output format. Overriding text → json for this session.")}
	case LiveEnded:
		return []Line{drawn(Purple, "\n━━━━━━━━━━━━━━━━ End of Output ━━━━━━━━━━━━━━━━━━━\n")}
	case GateBlocksCompletion:
		return []Line{logText(Warn, "Quality gate block: suppressing completion signals")}
	case GateWithholdsProgress:
		return []Line{logText(Warn, "Quality gate circuit-breaker: overriding progress signals")}
	case DenialsNotCleared:
		return []Line{logText(Warn, "Failed to clear permission denial markers from response analysis")}
	case UsageLimitNoAnswer:
		return []Line{outf("\n"), logText(Info, "No answer within 30 seconds: waiting for the limit to reset.")}
	case StreamKept:
		return []Line{logText(Info, "Keeping full stream output for shared response analysis")}
	case StreamResultInvalid:
		return []Line{logText(Warn, "Final result record was invalid JSON, keeping full stream output")}
	case StreamCollapsed:
		return []Line{logText(Info, "Collapsed streamed response to the final result record")}
	}
	return nil
}

// Starting opens a run: which agent, the call limit and where to look (the
// logs and the status file; the bash loop also names docs/generated/, which
// the loop never writes).
type Starting struct {
	Agent string
	// IgnoredTools: ALLOWED_TOOLS was given, but the agent has no such
	// setting.
	IgnoredTools bool
	MaxCalls     int
	LogsDir      string // as shown: relative to the project when inside it
	Status       string // likewise
}

func (n Starting) Lines() []Line {
	var l []Line
	if n.IgnoredTools {
		l = append(l, logf(Warn, "ALLOWED_TOOLS/--allowed-tools is ignored by %s.", n.Agent))
	}
	return append(l,
		logf(Success, "🚀 Ralph loop starting with %s", n.Agent),
		logf(Info, "Max calls per hour: %d", n.MaxCalls),
		logf(Info, "Logs: %s/ | Status: %s", n.LogsDir, n.Status))
}

// StartupFailed: a start-up check failed and the run stops. Err is a
// failure that says it all (an unreadable prompt or plan, an unknown
// driver, a missing agent CLI); otherwise Check names the failed check.
type StartupFailed struct {
	Check StartupCheck
	Err   error
	// Path is the prompt file as configured (PromptMissing) or the
	// project directory (NoGitRepo).
	Path string
	// Restore: the directory is a Ralph project missing its PROMPT.md,
	// which belongs here ("" when it is not a Ralph project).
	Restore string
}

// StartupCheck names a start-up check.
type StartupCheck uint8

// The start-up checks that fail without an error of their own.
const (
	PromptMissing  StartupCheck = iota + 1 // the prompt file does not exist
	GitMissing                             // no git on PATH
	NoGitRepo                              // the project is not a git repository
	NoCommits                              // the repository has no commit
	NoAgentCommand                         // PLATFORM_DRIVER=command without AGENT_COMMAND
)

var checkNames = map[StartupCheck]string{
	PromptMissing:  "prompt missing",
	GitMissing:     "git missing",
	NoGitRepo:      "no git repository",
	NoCommits:      "no commits",
	NoAgentCommand: "no agent command",
}

// String names the check.
func (c StartupCheck) String() string { return checkNames[c] }

// Lines are the ERROR lines of a failed start-up check: what is wrong,
// and what to do about it.
func (f StartupFailed) Lines() []Line {
	if f.Err != nil {
		return []Line{logf(Error, "%v", f.Err)}
	}
	var lines []string
	switch f.Check {
	case PromptMissing:
		// One line: what is missing and how to fix it (issue 41). The
		// bash loop's words lead it ("Prompt file '…' not found", "missing
		// …"), as its callers match them.
		if f.Restore != "" {
			lines = []string{"Prompt file '" + f.Path + "' not found: this bmalph/Ralph project is missing " + f.Restore +
				"; create it (the instructions the agent gets each loop), or run ralph_loop --init (in a bmalph project: bmalph init) to write the default one"}
		} else {
			lines = []string{"Prompt file '" + f.Path + "' not found: this directory is not a bmalph/Ralph project; run ralph_loop --init (or bmalph init) here to set one up, or change to a Ralph project's directory"}
		}
	case GitMissing:
		lines = []string{"git is not installed or not on PATH. Install git (e.g. apt-get install git) and retry."}
	case NoGitRepo:
		lines = []string{"No git repository found in " + f.Path + ".",
			"Ralph tracks progress with git. Create one with: git init && git add -A && git commit -m 'initial commit'"}
	case NoCommits:
		lines = []string{"Git repository has no commits.",
			"Ralph compares each loop's changes against HEAD. Make a first commit: git add -A && git commit -m 'initial commit'"}
	case NoAgentCommand:
		lines = []string{`PLATFORM_DRIVER=command needs AGENT_COMMAND (e.g. AGENT_COMMAND="my-agent --flag" in .ralph/.ralphrc)`}
	}
	out := make([]Line, 0, len(lines))
	for _, l := range lines {
		out = append(out, logText(Error, l))
	}
	return out
}

// TempFilesRemoved: start-up removed temp files an interrupted write left.
// RootRefusal: the agent will refuse every call of this run (Claude Code
// as root with bypassPermissions and no sandbox, drivers.RootBypass), said
// once before the first call: what is wrong and how to fix it.
type RootRefusal struct {
	Problem string // drivers.RootBypassProblem
	Fix     string // drivers.RootBypassFix
}

func (n RootRefusal) Lines() []Line { return []Line{logf(Warn, "%s", n.Text())} }

// Text is the warning's words (--dry-run --json lists them).
func (n RootRefusal) Text() string {
	p := n.Problem
	if p != "" {
		p = strings.ToUpper(p[:1]) + p[1:]
	}
	return p + "; " + n.Fix
}

type TempFilesRemoved struct{ Count int }

func (n TempFilesRemoved) Lines() []Line {
	return []Line{logf(Info, "Removed %d temp file(s) left by an interrupted write", n.Count)}
}

// AgentFound: the agent CLI's version and path (DEBUG), and where the
// version came from (its package.json, its init record...).
type AgentFound struct {
	Agent   string
	Version string
	Path    string
	From    string
}

func (n AgentFound) Lines() []Line {
	if n.From == "" {
		return []Line{logf(Debug, "%s %s at %s", n.Agent, n.Version, n.Path)}
	}
	return []Line{logf(Debug, "%s %s at %s (from %s)", n.Agent, n.Version, n.Path, n.From)}
}

// LoopMark opens (Done false) or closes an iteration.
type LoopMark struct {
	Loop int
	Done bool
}

func (n LoopMark) Lines() []Line {
	if n.Done {
		return []Line{logf(Loop, "=== Completed Loop #%d ===", n.Loop)}
	}
	return []Line{logf(Loop, "=== Starting Loop #%d ===", n.Loop)}
}

// Interrupted: a signal stops the run. Blocked: the loop was stuck
// outside an agent call and exits without waiting for it.
type Interrupted struct {
	Signal  string
	Blocked bool
}

func (n Interrupted) Lines() []Line {
	if n.Blocked {
		return []Line{logf(Info, "Ralph loop interrupted by %s while blocked. Exiting without waiting.", n.Signal)}
	}
	return []Line{logf(Info, "Ralph loop interrupted by %s. Cleaning up...", n.Signal)}
}

// BreakerHalted: the run stops because the breaker is open. Report is the
// breaker's own account of its state, shown on the console.
type BreakerHalted struct{ Report []string }

func (n BreakerHalted) Lines() []Line {
	return append(outLines(n.Report), logText(Error, "🛑 Circuit breaker has opened - execution halted"))
}

// BreakerOpenAtStart: the circuit breaker was open when the run started
// and stays open, so nothing runs; Stop says why and what to do, Next
// what to look at first and when the cooldown lets one loop try.
type BreakerOpenAtStart struct {
	Stop Stop
	Next string
}

func (n BreakerOpenAtStart) Lines() []Line {
	l := []Line{logf(Error, "🛑 Not starting: %s", n.Stop.Sentence())}
	if n.Next != "" {
		l = append(l, logText(Info, n.Next))
	}
	return l
}

// EmptyPlan: the run starts with a plan (File) that lists no task, or
// none at all (Missing): the agent has only the prompt to go on.
type EmptyPlan struct {
	File    string
	Missing bool
}

func (n EmptyPlan) Lines() []Line {
	what := n.File + " lists no task (no '- [ ] …' line)"
	if n.Missing {
		what = "there is no " + n.File
	}
	return []Line{logf(Warn, "⚠️ %s: the agent has only the prompt to go on, and the run ends only when it says it is done (or the circuit breaker opens after a few calls without progress); add the tasks, one '- [ ] …' line each, and run again", what)}
}

// GracefulExit: an exit condition ended the run (Reason: its name).
type GracefulExit struct{ Reason string }

func (n GracefulExit) Lines() []Line {
	return []Line{logf(Success, "🏁 Graceful exit triggered: %s", n.Reason)}
}

// Stalled: the iteration repeated the last reply with no change in git.
type Stalled struct {
	Count int
	Limit int
}

func (n Stalled) Lines() []Line {
	return []Line{logf(Warn, "Stalled iteration (%d of %d): same reply, no change in git", n.Count, n.Limit)}
}

// CallStarting: the agent is about to be called.
type CallStarting struct {
	Agent    string
	Call     int
	MaxCalls int
	Timeout  time.Duration
	// Retry: the failed calls in a row before this one (the hour's count,
	// Call, leaves out those the provider did not serve).
	Retry int
}

func (n CallStarting) Lines() []Line {
	return []Line{
		logf(Loop, "Executing %s (Call %d/%d%s)", n.Agent, n.Call, n.MaxCalls, retryWords(n.Retry)),
		logf(Info, "⏳ Starting %s execution... (timeout: %dm)", n.Agent, int(n.Timeout.Minutes()))}
}

// LoopContext is the context text given to the agent (DEBUG).
type LoopContext struct{ Text string }

func (n LoopContext) Lines() []Line { return []Line{logf(Debug, "Loop context: %s", n.Text)} }

// CLIMode: the output format asked of the agent.
type CLIMode struct{ Format string }

func (n CLIMode) Lines() []Line {
	return []Line{logf(Info, "Using modern CLI mode (%s output)", n.Format)}
}

// NoLiveStreaming: the agent cannot stream; live mode is off.
type NoLiveStreaming struct{ Agent string }

func (n NoLiveStreaming) Lines() []Line {
	return []Line{logf(Warn, "%s does not support structured live streaming. Falling back to background mode.", n.Agent)}
}

// LiveStarted: the agent's output is shown as it comes.
type LiveStarted struct{ Agent string }

func (n LiveStarted) Lines() []Line {
	return []Line{
		logf(Info, "📺 Live output mode enabled - showing %s streaming...", n.Agent),
		drawn(Purple, fmt.Sprintf("━━━━━━━━━━━━━━━━ %s Output ━━━━━━━━━━━━━━━━\n", n.Agent))}
}

// WriteTimeoutClamped: the write heartbeat was not shorter than the call
// timeout; Used is the value taken instead.
type WriteTimeoutClamped struct {
	Write   time.Duration
	Timeout time.Duration
	Used    time.Duration
}

func (n WriteTimeoutClamped) Lines() []Line {
	return []Line{logf(Warn, "WRITE_TIMEOUT_MINUTES (%d) >= CLAUDE_TIMEOUT_MINUTES (%d), using %d",
		int(n.Write.Minutes()), int(n.Timeout.Minutes()), int(n.Used.Minutes()))}
}

// OutputNotStored: the output of a call that failed anyway could not be
// stored in full (Err, the writer's error); DiskFull when the disk or the
// quota is full, which changes the remedy shown. (A call whose output
// could not be stored fails: its Failure says so.)
type OutputNotStored struct {
	Err      error
	DiskFull bool
}

func (n OutputNotStored) Lines() []Line { return []Line{logText(Error, notStored(n.Err, n.DiskFull))} }

// CallTick is the running call in the default (not --live) mode, said once
// a second: the time since it started, the bytes of output so far and the
// last tool call that output showed ("" when its format shows none). It is
// the ticking line a terminal redraws in place, never a log line.
type CallTick struct {
	Agent   string
	Elapsed time.Duration
	Bytes   int64
	Tool    string
}

func (n CallTick) Lines() []Line {
	s := fmt.Sprintf("⏳ %s working: %s, %s of output", n.Agent, clock(n.Elapsed), ByteSize(n.Bytes))
	if t := printable(n.Tool); t != "" {
		s += ", last tool: " + clip.Ellipsis(t, 40)
	}
	return []Line{{Show: Ticking, Text: s}}
}

// CallTickOver: the call has ended; its ticking line (CallTick) goes.
type CallTickOver struct{}

func (CallTickOver) Lines() []Line { return []Line{{Show: TickingOver}} }

// AgentSucceeded: the agent call ended well.
type AgentSucceeded struct{ Agent string }

func (n AgentSucceeded) Lines() []Line {
	return []Line{logf(Success, "✅ %s execution completed successfully", n.Agent)}
}

// Analysing: the agent's reply is being analysed.
type Analysing struct{ Agent string }

func (n Analysing) Lines() []Line {
	return []Line{logf(Info, "🔍 Analyzing %s response...", n.Agent)}
}

// Analysed is the summary of one analysed reply (a box on the console).
type Analysed struct {
	Loop         int
	ExitSignal   bool
	Confidence   int
	TestOnly     bool
	FilesChanged int
	Summary      string // the agent's own work summary, as it wrote it
}

// Lines are the Response Analysis box.
func (a Analysed) Lines() []Line {
	l := []Line{
		drawn(Blue, fmt.Sprintf("╔════════════════════════════════════════════════════════════╗\n"+
			"║           Response Analysis - Loop #%-23d║\n"+
			"╚════════════════════════════════════════════════════════════╝\n", a.Loop)),
		outf("Exit Signal:      %v\n", a.ExitSignal),
	}
	// Completion is how sure the analysis is that the agent says it is done
	// (100 with an exit signal, 80 for an explicit EXIT_SIGNAL: false, the
	// text heuristics' score otherwise); 0 measured nothing, and is not shown.
	if a.Confidence > 0 {
		l = append(l, outf("Completion:       %d%%\n", a.Confidence))
	}
	l = append(l,
		outf("Test Only:        %v\n", a.TestOnly),
		outf("Files Changed:    %d\n", a.FilesChanged),
	)
	if sum := boxSummary(a.Summary); sum != "" {
		l = append(l, outf("Summary:          %s\n", clip.Bytes(sum, 200)))
	}
	return append(l, outf("\n"))
}

// FilesChanged: the files changed since the loop started (DEBUG).
type FilesChanged struct{ Count int }

func (n FilesChanged) Lines() []Line {
	return []Line{logf(Debug, "Detected %d unique files changed (commits + working tree) since loop start", n.Count)}
}

// OutputErrors: the agent's output (File) has error lines (Errors).
type OutputErrors struct {
	File   string
	Errors []string
}

// Lines: where to look, and each error line (DEBUG).
func (n OutputErrors) Lines() []Line {
	l := []Line{logf(Warn, "Errors detected in output, check: %s", n.File)}
	for i, e := range n.Errors {
		l = append(l, logf(Debug, "  %d: %s", i+1, e))
	}
	return l
}

// UnknownState: the agent reported a state marker the loop ignores.
type UnknownState struct{ Name string }

func (n UnknownState) Lines() []Line {
	return []Line{logf(Info, "Agent reported unknown state %q (ignored)", n.Name)}
}

// DoneMatched: DONE_PATTERN matched the reply (a failing quality gate may
// still hold the run's completion: CompletionHeld).
type DoneMatched struct {
	Pattern string
}

func (n DoneMatched) Lines() []Line {
	return []Line{logf(Success, "Done pattern %q matched the agent's reply", n.Pattern)}
}

// NoWrites: the write heartbeat stopped a call that changed no file.
type NoWrites struct{ After time.Duration }

func (n NoWrites) Lines() []Line {
	return []Line{logf(Warn, "Write heartbeat: no file modifications in %dm", int(n.After.Minutes()))}
}

// PermissionDenied: the agent was refused Commands in loop Loop. With
// Halt the run stops (PermissionHelp follows); otherwise Mode
// (PERMISSION_DENIAL_MODE) lets it go on.
type PermissionDenied struct {
	Commands string
	Mode     string
	Loop     int
	Halt     bool
}

func (n PermissionDenied) Lines() []Line {
	if n.Halt {
		return []Line{logText(Error, "🚫 Permission denied - halting loop")}
	}
	return []Line{
		logf(Warn, "🚫 Permission denied in loop #%d: %s", n.Loop, n.Commands),
		logf(Warn, "PERMISSION_DENIAL_MODE=%s - continuing execution", n.Mode)}
}

// PermissionHelp is the box shown when a denial halts the run: Help (the
// driver's words), and the current ALLOWED_TOOLS when ShowTools.
type PermissionHelp struct {
	Agent        string
	Help         []string
	ShowTools    bool
	AllowedTools []string
}

func (h PermissionHelp) Lines() []Line {
	l := []Line{
		drawn(Red, "╔════════════════════════════════════════════════════════════╗\n"+
			"║  PERMISSION DENIED - Loop Halted                           ║\n"+
			"╚════════════════════════════════════════════════════════════╝\n"),
		outf("%s was denied permission to execute commands.\n\nTo fix this:\n", h.Agent),
	}
	l = append(l, outLines(h.Help)...)
	if h.ShowTools {
		l = append(l, outf("Current ALLOWED_TOOLS: %s\n", strings.Join(h.AllowedTools, ",")))
	}
	return l
}

// UsageLimitWait: the loop waits Wait for the usage limit, until Until.
type UsageLimitWait struct {
	Wait  time.Duration
	Until time.Time
}

func (n UsageLimitWait) Lines() []Line {
	return []Line{logf(Info, "Waiting %s before retrying (until %s)...", roundWait(n.Wait), n.Until.Local().Format("15:04:05"))}
}

// UsageLimitQuestion: console, the wait-or-exit question for the limit of
// Usage's window.
type UsageLimitQuestion struct{ Usage UsageWindow }

func (n UsageLimitQuestion) Lines() []Line {
	return []Line{outf("\nThe usage limit%s has been reached; %s.\nYou can either:\n  1) Wait for the limit to reset\n  2) Exit the loop and try again later\n\nChoose an option (1 or 2): ",
		ofWindow("of", n.Usage), resetWords(n.Usage))}
}

// WaitSkipped: Ctrl+C skipped a wait; the next call starts after Window.
type WaitSkipped struct{ Window time.Duration }

func (n WaitSkipped) Lines() []Line {
	return []Line{logf(Info, "Wait skipped (Ctrl+C). Starting the next call in %d s — press Ctrl+C again to stop.", int(n.Window.Seconds()))}
}

// WaitTick is the time left in a wait, at the wait's start and at every
// whole second after. Kind is the wait's name in events (loop_delay,
// idle_backoff, failure_backoff, outage_backoff, rate_limit, usage_limit).
type WaitTick struct {
	Kind string
	Left time.Duration
}

// Lines: the wait's countdown, "Next loop in: 00:00:10".
func (t WaitTick) Lines() []Line {
	return []Line{{Show: Countdown, Level: Info, Text: waitLabels[t.Kind] + ": " + clock(t.Left), Left: t.Left}}
}

// WaitOver ends the countdown of a wait.
type WaitOver struct{}

func (WaitOver) Lines() []Line { return []Line{{Show: CountdownOver}} }

// CallWindowReset: a new clock hour started a new call window.
type CallWindowReset struct{ Hour string }

func (n CallWindowReset) Lines() []Line { return []Line{logText(Info, newHourLine(n.Hour))} }

// retryWords says a call follows failed ones: ", retry 3".
func retryWords(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(", retry %d", n)
}
