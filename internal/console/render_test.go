package console

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ralphloop/ralph_loop/internal/events"
	"github.com/ralphloop/ralph_loop/internal/supervise"
)

var t0 = time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)

// errNoSpace is a write error as the supervisor reports it: its own
// prefix around the writer's error, which names the file.
var errNoSpace = fmt.Errorf("output could not be written: %w", &fs.PathError{Op: "write", Path: ".ralph/logs/o.log", Err: syscall.ENOSPC})

// logged is the expected stderr of log lines, one "LEVEL msg" a line.
func logged(lines ...string) string {
	var b strings.Builder
	stamp := "[" + t0.Local().Format(events.LocalStamp) + "] "
	for _, l := range lines {
		level, msg, _ := strings.Cut(l, " ")
		b.WriteString(stamp + "[" + level + "] " + msg + "\n")
	}
	return b.String()
}

// render shows ns on a console with o and returns stdout and stderr.
func render(o Options, ns ...any) (string, string) {
	var out, errb bytes.Buffer
	c := New(&out, &errb, o)
	for _, n := range ns {
		show(c, t0, n)
	}
	return out.String(), errb.String()
}

// The golden strings: every notice renders to the words, levels and
// console output the loop has always shown (bmalph parses the
// "[stamp] [LEVEL] msg" lines).
func TestRenderLines(t *testing.T) {
	until := time.Date(2030, 1, 2, 15, 4, 5, 0, time.Local)
	warnPct, warnReset := 81.0, time.Date(2026, 11, 25, 5, 0, 0, 0, time.UTC)
	tests := []struct {
		n    any
		want []string
	}{
		{events.Logged{Level: success, Text: "100% done %d"}, []string{"SUCCESS 100% done %d"}},
		{warned{events.Warn, errors.New("disk")}, []string{"WARN disk"}},
		{warned{events.Error, errors.New("bad")}, []string{"ERROR bad"}},
		{runStarted{}, []string{"INFO Starting main loop..."}},
		{events.RateLimitReset, []string{"SUCCESS Rate limit reset! Ready for new calls."}},
		{pause(true), []string{"WARN Paused (ralph_loop --pause). Waiting; run 'ralph_loop --resume' in this project to continue."}},
		{pause(false), []string{"SUCCESS Resumed."}},
		{events.LiveNeedsJSON, []string{"WARN Live mode requires JSON output format. Overriding text → json for this session."}},
		{events.GateBlocksCompletion, []string{"WARN Quality gate block: suppressing completion signals"}},
		{events.GateWithholdsProgress, []string{"WARN Quality gate circuit-breaker: overriding progress signals"}},
		// A call that opened the breaker says it halts the run (a read-only
		// one why); a read-only call that did not is retried.
		{events.Call{Outcome: events.IterationTimedOut, Iteration: &events.Iteration{Outcome: "read_only_timeout"}, BreakerOpened: true}, []string{
			"ERROR 🛑 Circuit breaker has opened - halting loop", "INFO Run 'ralph_loop --reset-circuit' to reset the circuit breaker after addressing issues",
			"ERROR Circuit breaker opened after repeated read-only timeouts"}},
		{events.Call{Outcome: events.IterationTimedOut, Iteration: &events.Iteration{Outcome: "read_only_timeout"}}, []string{"WARN Write heartbeat: read-only loop, retrying with write-early context"}},
		{events.Call{Outcome: events.IterationCompleted, Iteration: &events.Iteration{Outcome: "circuit_breaker_trip"}, BreakerOpened: true}, []string{
			"ERROR 🛑 Circuit breaker has opened - halting loop", "INFO Run 'ralph_loop --reset-circuit' to reset the circuit breaker after addressing issues"}},
		{events.DenialsNotCleared, []string{"WARN Failed to clear permission denial markers from response analysis"}},
		{events.Call{Outcome: events.IterationFailed, Agent: "Codex", Limit: &events.UsageWindow{Window: "primary", Status: "rejected"}}, []string{"ERROR 🚫 Codex usage limit reached (the primary window)"}},
		{events.Call{Outcome: events.IterationFailed, Agent: "Claude Code", Limit: &events.UsageWindow{Window: "unknown"}}, []string{"ERROR 🚫 Claude Code usage limit reached (a window the CLI did not name)"}},
		{usageHit{events.UsageWindow{Window: "five_hour", ResetsAt: &warnReset}, false}, []string{"WARN 🛑 Usage limit reached for the five_hour window; it resets at 2026-11-25 05:00 UTC"}},
		{usageHit{events.UsageWindow{Window: "unknown"}, false}, []string{"WARN 🛑 Usage limit reached; its reset time was not reported"}},
		{events.End{Stop: &events.Stop{Kind: events.StopUsageLimit}}, []string{"INFO User chose to exit. Exiting loop..."}},
		{events.StreamKept, []string{"INFO Keeping full stream output for shared response analysis"}},
		{events.StreamResultInvalid, []string{"WARN Final result record was invalid JSON, keeping full stream output"}},
		{events.StreamCollapsed, []string{"INFO Collapsed streamed response to the final result record"}},
		{events.Starting{Agent: "Claude Code", MaxCalls: 100, LogsDir: ".ralph/logs", DocsDir: ".ralph/docs/generated", Status: ".ralph/status.json"}, []string{
			"SUCCESS 🚀 Ralph loop starting with Claude Code", "INFO Max calls per hour: 100",
			"INFO Logs: .ralph/logs/ | Docs: .ralph/docs/generated/ | Status: .ralph/status.json"}},
		{events.Starting{Agent: "Codex", IgnoredTools: true, MaxCalls: 5, LogsDir: "l", DocsDir: "d", Status: "s"}, []string{
			"WARN ALLOWED_TOOLS/--allowed-tools is ignored by Codex.", "SUCCESS 🚀 Ralph loop starting with Codex",
			"INFO Max calls per hour: 5", "INFO Logs: l/ | Docs: d/ | Status: s"}},
		{events.StartupFailed{Err: errors.New("unknown driver \"x\"")}, []string{`ERROR unknown driver "x"`}},
		{events.StartupFailed{Check: events.GitMissing}, []string{"ERROR git is not installed or not on PATH. Install git (e.g. apt-get install git) and retry."}},
		{events.StartupFailed{Check: events.NoGitRepo, Path: "/p"}, []string{"ERROR No git repository found in /p.",
			"ERROR Ralph tracks progress with git. Create one with: git init && git add -A && git commit -m 'initial commit'"}},
		{events.StartupFailed{Check: events.NoCommits}, []string{"ERROR Git repository has no commits.",
			"ERROR Ralph compares each loop's changes against HEAD. Make a first commit: git add -A && git commit -m 'initial commit'"}},
		{events.StartupFailed{Check: events.NoAgentCommand}, []string{`ERROR PLATFORM_DRIVER=command needs AGENT_COMMAND (e.g. AGENT_COMMAND="my-agent --flag" in .ralph/.ralphrc)`}},
		{events.StartupFailed{Check: events.PromptMissing, Path: ".ralph/PROMPT.md", Restore: ".ralph/PROMPT.md"}, []string{
			"ERROR Prompt file '.ralph/PROMPT.md' not found: this bmalph/Ralph project is missing .ralph/PROMPT.md; create it (the instructions the agent gets each loop), or run ralph_loop --init (in a bmalph project: bmalph init) to write the default one"}},
		{events.StartupFailed{Check: events.PromptMissing, Path: "P.md"}, []string{
			"ERROR Prompt file 'P.md' not found: this directory is not a bmalph/Ralph project; run ralph_loop --init (or bmalph init) here to set one up, or change to a Ralph project's directory"}},
		{events.TempFilesRemoved{Count: 2}, []string{"INFO Removed 2 temp file(s) left by an interrupted write"}},
		{events.LoopMark{Loop: 3}, []string{"LOOP === Starting Loop #3 ==="}},
		{events.LoopMark{Loop: 3, Done: true}, []string{"LOOP === Completed Loop #3 ==="}},
		{events.Interrupted{Signal: "SIGINT"}, []string{"INFO Ralph loop interrupted by SIGINT. Cleaning up..."}},
		{events.Interrupted{Signal: "SIGTERM", Blocked: true}, []string{"INFO Ralph loop interrupted by SIGTERM while blocked. Exiting without waiting."}},
		{events.BreakerHalted{}, []string{"ERROR 🛑 Circuit breaker has opened - execution halted"}},
		{events.GracefulExit{Reason: "plan_complete"}, []string{"SUCCESS 🏁 Graceful exit triggered: plan_complete"}},
		{events.CallStarting{Agent: "Claude Code", Call: 2, MaxCalls: 100, Timeout: 15 * time.Minute, Retry: 3}, []string{
			"LOOP Executing Claude Code (Call 2/100, retry 3)", "INFO ⏳ Starting Claude Code execution... (timeout: 15m)"}},
		{completion{"plan_complete", 4, 5, 0, events.Evidence{}}, []string{
			"SUCCESS 🎉 Ralph has completed the project! Final stats:", "INFO   - Total loops: 4",
			"INFO   - API calls used: 5", "INFO   - Exit reason: plan_complete",
			"SUCCESS ✅ Completed (plan_complete): no tasks in @fix_plan.md; no quality gates configured"}},
		// A run that found the plan done made no call and counts no loop.
		{completion{"plan_complete", 1, 0, 0, events.Evidence{}}, []string{
			"SUCCESS 🎉 Ralph has completed the project! Final stats:", "INFO   - Total loops: 0 (no agent call was needed)",
			"INFO   - API calls used: 0", "INFO   - Exit reason: plan_complete",
			"SUCCESS ✅ Completed (plan_complete): no tasks in @fix_plan.md; no quality gates configured"}},
		// Every call counts, the failed ones too.
		{completion{"plan_complete", 8, 8, 3, events.Evidence{}}, []string{
			"SUCCESS 🎉 Ralph has completed the project! Final stats:", "INFO   - Total loops: 8",
			"INFO   - API calls used: 8 (3 failed)", "INFO   - Exit reason: plan_complete",
			"SUCCESS ✅ Completed (plan_complete): no tasks in @fix_plan.md; no quality gates configured"}},
		{rateLimit{3, 3, 90*time.Second + time.Millisecond}, []string{
			"WARN Rate limit reached (3/3). Waiting for reset...", "INFO Sleeping for 91 seconds until next hour..."}},
		{stopCondition{events.Stop{Kind: events.StopMaxLoops, Calls: 2, Limit: 2}}, []string{"INFO Max loops reached: stopped after 2 agent calls (--max-loops 2)"}},
		{stopCondition{events.Stop{Kind: events.StopMaxLoops, Calls: 1, Limit: 1}}, []string{"INFO Max loops reached: stopped after 1 agent call (--max-loops 1)"}},
		{stopCondition{events.Stop{Kind: events.StopMaxCost, Spent: 0.8, Budget: 0.8}}, []string{"WARN cost budget reached: $0.8000 spent of $0.8000 (--max-cost)"}},
		{stopCondition{events.Stop{Kind: events.StopMaxTokens, Tokens: 3080, TokenLimit: 3080}}, []string{"WARN token budget reached: 3080 tokens used of 3080 (--max-tokens)"}},
		{stopCondition{events.Stop{Kind: events.StopIdle, Idle: 90*time.Second + 400*time.Millisecond, IdleMax: 90 * time.Second}}, []string{"WARN idle for 1m30s (IDLE_MAX=1m30s); nothing left to do"}},
		{stopCondition{events.Stop{Kind: events.StopStalled, Calls: 3, Limit: 3}}, []string{"ERROR 🛑 stalled: 3 iterations in a row with the same reply and no change in git (STALL_LIMIT=3)"}},
		{stopCondition{events.Stop{Kind: events.StopGaveUp, Agent: "Codex", Failures: 3, Last: events.Failure{Code: 2}, Log: ".ralph/logs/e.log"}}, []string{
			"ERROR 🛑 Codex failed 3 times in a row (last: error (exit 2), code 2); check .ralph/logs/e.log and the agent's setup, then run ralph_loop again"}},
		{stopCondition{events.Stop{Kind: events.StopNotStored, Failures: 3, Err: errNoSpace, DiskFull: true}}, []string{
			"ERROR 🛑 the agent's output could not be stored 3 times in a row (write .ralph/logs/o.log: no space left on device); free disk space, then run ralph_loop again"}},
		{events.Stalled{Count: 1, Limit: 3}, []string{"WARN Stalled iteration (1 of 3): same reply, no change in git"}},
		// A back-off says why it waits as it starts; other waits have their countdown.
		{events.Wait{Kind: "failure_backoff", Delay: 30 * time.Second, Tries: 1, MaxTries: 5}, []string{"WARN Execution failed, waiting 30s before retry (failure 1 of 5)..."}},
		{events.Wait{Kind: "failure_backoff", Delay: time.Minute, Tries: 7, MaxTries: math.MaxInt}, []string{"WARN Execution failed, waiting 1m0s before retry (failure 7 of unlimited)..."}},
		{events.Wait{Kind: "outage_backoff", Cause: "the provider is overloaded", Said: "API Error: 529 Overloaded", Delay: 4 * time.Second,
			Lasted: 70*time.Second + 200*time.Millisecond, OutageMax: 6 * time.Hour, Tries: 3}, []string{
			"WARN ⏳ Provider outage: the provider is overloaded — it said: API Error: 529 Overloaded; next try in 4s (try 3, failing for 1m10s; stops at OUTAGE_MAX=6h0m0s)"}},
		{events.Wait{Kind: "loop_delay", Delay: time.Minute}, nil},
		{events.Wait{Kind: "outage_backoff", Cause: "the provider's API could not be reached", Delay: 30 * time.Minute, Lasted: 2 * time.Hour, Tries: 12}, []string{
			"WARN ⏳ Provider outage: the provider's API could not be reached; next try in 30m0s (try 12, failing for 2h0m0s; no OUTAGE_MAX: waiting as long as it takes)"}},
		{stopCondition{events.Stop{Kind: events.StopPermanent, Cause: "Codex is not logged in or its API key is invalid", Fix: "run `codex login` (or set a valid OPENAI_API_KEY)"}}, []string{
			"ERROR 🛑 Codex is not logged in or its API key is invalid: run `codex login` (or set a valid OPENAI_API_KEY)"}},
		{events.UsageLimitWait{Wait: 59*time.Minute + 40*time.Second, Until: until}, []string{"INFO Waiting 1h0m0s before retrying (until 15:04:05)..."}},
		{events.UsageLimitWait{Wait: 8*time.Second + 300*time.Millisecond, Until: until}, []string{"INFO Waiting 8s before retrying (until 15:04:05)..."}},
		{usageHit{events.UsageWindow{Window: "five_hour", UsedPercent: &warnPct, ResetsAt: &warnReset}, true},
			[]string{"WARN ⚠️ Usage warning for the five_hour window (81% used); it resets at 2026-11-25 05:00 UTC: waiting for it (USAGE_WARNING_ACTION=wait)"}},
		{events.WaitSkipped{Window: 2 * time.Second}, []string{"INFO Wait skipped (Ctrl+C). Starting the next call in 2 s — press Ctrl+C again to stop."}},
		{events.CallStarting{Agent: "Claude Code", Call: 2, MaxCalls: 100, Timeout: 15 * time.Minute}, []string{
			"LOOP Executing Claude Code (Call 2/100)", "INFO ⏳ Starting Claude Code execution... (timeout: 15m)"}},
		{events.CLIMode{Format: "json"}, []string{"INFO Using modern CLI mode (json output)"}},
		{events.NoLiveStreaming{Agent: "Aider"}, []string{"WARN Aider does not support structured live streaming. Falling back to background mode."}},
		{events.WriteTimeoutClamped{Write: 20 * time.Minute, Timeout: 15 * time.Minute, Used: 14 * time.Minute}, []string{"WARN WRITE_TIMEOUT_MINUTES (20) >= CLAUDE_TIMEOUT_MINUTES (15), using 14"}},
		{events.OutputNotStored{Err: errNoSpace, DiskFull: true}, []string{
			"ERROR 💾 Agent output could not be stored (write .ralph/logs/o.log: no space left on device); the call counts as failed — free disk space, then run ralph_loop again"}},
		{events.OutputNotStored{Err: errors.New("open .ralph/logs/o.log: permission denied")}, []string{
			"ERROR 💾 Agent output could not be stored (open .ralph/logs/o.log: permission denied); the call counts as failed — make .ralph/ writable, then run ralph_loop again"}},
		{events.AgentSucceeded{Agent: "Codex"}, []string{"SUCCESS ✅ Codex execution completed successfully"}},
		{events.Analysing{Agent: "Codex"}, []string{"INFO 🔍 Analyzing Codex response..."}},
		{events.OutputErrors{File: ".ralph/logs/o.log", Lines: []string{"a", "b"}}, []string{"WARN Errors detected in output, check: .ralph/logs/o.log"}},
		{events.UnknownState{Name: "sleepy"}, []string{`INFO Agent reported unknown state "sleepy" (ignored)`}},
		{events.Call{Outcome: events.IterationIdle, Idle: 2}, []string{"INFO 💤 Agent is idle (2 in a row)"}},
		{events.DoneMatched{Pattern: "ALL DONE"}, []string{`SUCCESS Done pattern "ALL DONE" matched the agent's reply`}},
		// A failed call says how, then what to do when the loop stopped
		// it for its output, then the end of its stderr.
		{events.Call{Agent: "Codex", Failure: &events.Failure{Reason: supervise.TimedOut, Code: 124}}, []string{"ERROR ❌ Codex exited: timed out (code 124)"}},
		{events.Call{Agent: "Codex", Failure: &events.Failure{Code: 1}}, []string{"ERROR ❌ Codex exited: error (code 1)"}},
		{events.Call{Agent: "Codex", Failure: &events.Failure{Code: 0}}, []string{"ERROR ❌ Codex exited: reported an error (code 0)"}},
		{events.Call{Agent: "Codex", Failure: &events.Failure{Reason: supervise.StartFailed, Code: 127, Err: errors.New("no such file")}}, []string{
			"ERROR ❌ Codex exited: could not start (code 127)", "ERROR   no such file"}},
		{events.Call{Agent: "Codex", Failure: &events.Failure{Code: 2}, StderrTail: "x | y", StderrLog: ".ralph/logs/e.log"}, []string{
			"ERROR ❌ Codex exited: error (exit 2) (code 2)", "ERROR   stderr (last 3 lines): x | y", "ERROR   full stderr log: .ralph/logs/e.log"}},
		{events.Call{Agent: "Codex", Failure: &events.Failure{Reason: supervise.OutputTooLarge, Code: 143, MaxMB: 50}, Iteration: &events.Iteration{OutputFile: ".ralph/logs/out.log"},
			StderrTail: "killed", StderrLog: "e.log"}, []string{
			"ERROR ❌ Codex exited: output too large (more than MAX_OUTPUT_MB=50) (code 143)",
			"ERROR   the agent printed more than MAX_OUTPUT_MB=50 MB and was stopped; .ralph/logs/out.log keeps the head and the tail (raise MAX_OUTPUT_MB, or 0 for no limit, if this output was expected)",
			"ERROR   stderr (last 3 lines): killed", "ERROR   full stderr log: e.log"}},
		{events.Call{Agent: "Claude Code", Failure: &events.Failure{Reason: supervise.WriteFailed, Code: -1, Err: errNoSpace, DiskFull: true}}, []string{
			"ERROR ❌ Claude Code exited: output could not be stored (code -1)",
			"ERROR 💾 Agent output could not be stored (write .ralph/logs/o.log: no space left on device); the call counts as failed — free disk space, then run ralph_loop again"}},
		{events.NoWrites{After: 10 * time.Minute}, []string{"WARN Write heartbeat: no file modifications in 10m"}},
		{events.BreakerChange{From: "CLOSED", To: "HALF_OPEN", Reason: "no progress"}, []string{"WARN Circuit breaker: CLOSED → HALF_OPEN (no progress)"}},
		{events.BreakerChange{From: "HALF_OPEN", To: "CLOSED", Reason: "progress", Closed: true}, []string{"SUCCESS Circuit breaker: HALF_OPEN → CLOSED (progress)"}},
		{events.PermissionDenied{Commands: "rm", Loop: 2, Halt: true}, []string{"ERROR 🚫 Permission denied - halting loop"}},
		{events.PermissionDenied{Commands: "rm, git push", Mode: "continue", Loop: 2}, []string{
			"WARN 🚫 Permission denied in loop #2: rm, git push", "WARN PERMISSION_DENIAL_MODE=continue - continuing execution"}},
		// DEBUG lines are hidden unless verbose.
		{events.AgentFound{Agent: "claude", Version: "1.0", Path: "/bin/claude"}, nil},
		{events.LoopContext{Text: "ctx"}, nil},
		{events.FilesChanged{Count: 3}, nil},
		{events.AgentWorking{Agent: "Codex", Elapsed: 20 * time.Second}, nil},
	}
	for _, tc := range tests {
		_, got := render(Options{}, tc.n)
		if want := logged(tc.want...); got != want {
			t.Errorf("%#v:\n got %q\nwant %q", tc.n, got, want)
		}
	}
}

func TestRenderDebug(t *testing.T) {
	_, got := render(Options{Verbose: true},
		events.AgentFound{Agent: "claude", Version: "1.0", Path: "/bin/claude"},
		events.AgentFound{Agent: "claude", Version: "2.1.330", Path: "/bin/claude", From: "/lib/package.json"},
		events.LoopContext{Text: "ctx"},
		events.FilesChanged{Count: 3},
		events.AgentWorking{Agent: "Codex", Elapsed: 20 * time.Second},
		events.AgentWorking{Agent: "Codex", Last: strings.Repeat("x", 90), Elapsed: 30 * time.Second},
		events.OutputErrors{File: "o.log", Lines: []string{"a", "b"}},
	)
	want := logged("DEBUG claude 1.0 at /bin/claude", "DEBUG claude 2.1.330 at /bin/claude (from /lib/package.json)", "DEBUG Loop context: ctx",
		"DEBUG Detected 3 unique files changed (commits + working tree) since loop start",
		"DEBUG Codex working... (20s elapsed)",
		"DEBUG Codex: "+strings.Repeat("x", 80)+"... (30s)",
		"WARN Errors detected in output, check: o.log", "DEBUG   1: a", "DEBUG   2: b")
	if got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

// Log lines are coloured by level when stderr is a terminal.
func TestRenderColour(t *testing.T) {
	stamp := t0.Local().Format(events.LocalStamp)
	tests := []struct {
		level events.Level
		want  string
	}{
		{events.Info, "\033[0;34m[" + stamp + "] [INFO] msg\033[0m\n"},
		{loopLevel, "\033[0;35m[" + stamp + "] [LOOP] msg\033[0m\n"},
		{events.Error, "\033[0;31m[" + stamp + "] [ERROR] msg\033[0m\n"},
		{success, "\033[0;32m[" + stamp + "] [SUCCESS] msg\033[0m\n"},
		{events.Warn, "\033[1;33m[" + stamp + "] [WARN] msg\033[0m\n"},
	}
	for _, tc := range tests {
		_, got := render(Options{Colour: true}, events.Logged{Level: tc.level, Text: "msg"})
		if got != tc.want {
			t.Errorf("%s: %q, want %q", tc.level, got, tc.want)
		}
	}
}

const (
	boxTop    = "╔════════════════════════════════════════════════════════════╗\n"
	boxBottom = "╚════════════════════════════════════════════════════════════╝"
)

// What goes to the console's output stream: boxes, banners, the live
// output, the usage-limit question; coloured only on a terminal.
func TestRenderOut(t *testing.T) {
	analysed := events.Analysed{Loop: 7, ExitSignal: true, Confidence: 80, FilesChanged: 2,
		Summary: "Summary: Fixed the parser.\n---RALPH_STATUS---\nSTATUS: COMPLETE\n---END_RALPH_STATUS---"}
	box := "║           Response Analysis - Loop #7                      ║\n" + boxBottom + "%s\n" +
		"Exit Signal:      true\nCompletion:       80%%\nTest Only:        false\nFiles Changed:    2\nSummary:          Fixed the parser.\n\n"
	help := events.PermissionHelp{Agent: "Claude Code", Help: []string{"  1. Edit .ralphrc", "  2. Run again"}, ShowTools: true, AllowedTools: []string{"Write", "Bash(git *)"}}
	denied := "║  PERMISSION DENIED - Loop Halted                           ║\n" + boxBottom + "%s\n" +
		"Claude Code was denied permission to execute commands.\n\nTo fix this:\n  1. Edit .ralphrc\n  2. Run again\nCurrent ALLOWED_TOOLS: Write,Bash(git *)\n"
	tests := []struct {
		name string
		n    []any
		tty  bool
		out  string
		err  []string
	}{
		{"analysis box", []any{analysed}, false, boxTop + strings.ReplaceAll(strings.Replace(box, "%s", "", 1), "%%", "%"), nil},
		{"analysis box on a terminal", []any{analysed}, true,
			blue + boxTop + strings.ReplaceAll(strings.Replace(box, "%s", reset, 1), "%%", "%"), nil},
		{"analysis box without summary", []any{events.Analysed{Loop: 1, Summary: "---RALPH_STATUS---\nEXIT_SIGNAL: false"}}, false,
			boxTop + "║           Response Analysis - Loop #1                      ║\n" + boxBottom + "\n" +
				"Exit Signal:      false\nTest Only:        false\nFiles Changed:    0\n\n", nil},
		{"permission box", []any{help}, false, boxTop + strings.Replace(denied, "%s", "", 1), nil},
		{"permission box on a terminal", []any{help}, true, red + boxTop + strings.Replace(denied, "%s", reset, 1), nil},
		{"live", []any{events.LiveStarted{Agent: "Claude Code"}, output("hi\n"), events.LiveEnded}, false,
			"━━━━━━━━━━━━━━━━ Claude Code Output ━━━━━━━━━━━━━━━━\nhi\n\n━━━━━━━━━━━━━━━━ End of Output ━━━━━━━━━━━━━━━━━━━\n",
			[]string{"INFO 📺 Live output mode enabled - showing Claude Code streaming..."}},
		{"live on a terminal", []any{events.LiveStarted{Agent: "Codex"}, events.LiveEnded}, true,
			purple + "━━━━━━━━━━━━━━━━ Codex Output ━━━━━━━━━━━━━━━━" + reset + "\n\n" + purple + "━━━━━━━━━━━━━━━━ End of Output ━━━━━━━━━━━━━━━━━━━" + reset + "\n",
			[]string{"INFO 📺 Live output mode enabled - showing Codex streaming..."}},
		{"breaker report", []any{events.BreakerChange{From: "CLOSED", To: "OPEN", Reason: "r", Report: []string{"a", "b"}}, events.BreakerHalted{Report: []string{"c"}}}, false,
			"a\nb\nc\n", []string{"WARN Circuit breaker: CLOSED → OPEN (r)", "ERROR 🛑 Circuit breaker has opened - execution halted"}},
		{"usage limit question", []any{events.UsageLimitQuestion{Usage: events.UsageWindow{Window: "five_hour"}}, events.UsageLimitNoAnswer}, false,
			"\nThe usage limit of the five_hour window has been reached; its reset time was not reported.\nYou can either:\n  1) Wait for the limit to reset\n  2) Exit the loop and try again later\n\nChoose an option (1 or 2): \n",
			[]string{"INFO No answer within 30 seconds: waiting for the limit to reset."}},
	}
	for _, tc := range tests {
		out, err := render(Options{TTY: tc.tty}, tc.n...)
		if out != tc.out {
			t.Errorf("%s: out\n got %q\nwant %q", tc.name, out, tc.out)
		}
		if want := logged(tc.err...); err != want {
			t.Errorf("%s: err\n got %q\nwant %q", tc.name, err, want)
		}
	}
}

// A countdown is redrawn in place on a terminal; otherwise it shows the
// first tick, then one line a minute, on the console and in the log alike.
func TestRenderCountdown(t *testing.T) {
	// Waiting 125.3 s ticks at 125.3 s, then at every whole second left.
	ticks := []any{events.WaitTick{Kind: "loop_delay", Left: 125*time.Second + 300*time.Millisecond}}
	for left := 125 * time.Second; left > 0; left -= time.Second {
		ticks = append(ticks, events.WaitTick{Kind: "loop_delay", Left: left})
	}
	ticks = append(ticks, events.WaitOver{}, events.WaitTick{Kind: "rate_limit", Left: 3 * time.Second}, events.WaitOver{})

	out, err := render(Options{}, ticks...)
	if out != "" {
		t.Errorf("out %q", out)
	}
	want := logged("INFO Next loop in: 00:02:05", "INFO Next loop in: 00:01:05", "INFO Next loop in: 00:00:05", "INFO Time until reset: 00:00:03")
	if err != want {
		t.Errorf("err\n got %q\nwant %q", err, want)
	}
	var rec recorder
	log := NewLog(&rec, Options{})
	for _, n := range ticks {
		show(log, t0, n)
	}
	if got := rec.String(); got != want {
		t.Errorf("log\n got %q\nwant %q", got, want)
	}

	out, err = render(Options{TTY: true}, events.WaitTick{Kind: "failure_backoff", Left: 2 * time.Second},
		events.WaitTick{Kind: "failure_backoff", Left: time.Second}, events.WaitOver{},
		events.WaitTick{Kind: "usage_limit", Left: time.Hour}, events.WaitOver{})
	wantOut := "\r\033[1;33mRetrying in: 00:00:02\033[0m\033[K\r\033[1;33mRetrying in: 00:00:01\033[0m\033[K\n" +
		"\r\033[1;33mTime until retry: 01:00:00\033[0m\033[K\n"
	if out != wantOut || err != "" {
		t.Errorf("terminal: out %q err %q\nwant out %q", out, err, wantOut)
	}
	rec = recorder{}
	log = NewLog(&rec, Options{TTY: true})
	show(log, t0, events.WaitTick{Kind: "idle_backoff", Left: time.Second})
	if rec.String() != "" {
		t.Errorf("log of a terminal countdown %q", rec.String())
	}
	if got := waitLabels["idle_backoff"]; got != "Idle; next iteration in" {
		t.Errorf("idle label %q", got)
	}
}

type recorder struct{ b strings.Builder }

func (r *recorder) Line(ts time.Time, level events.Level, msg string) {
	r.b.WriteString("[" + ts.Local().Format(events.LocalStamp) + "] [" + string(level) + "] " + msg + "\n")
}

func (r *recorder) String() string { return r.b.String() }

// The log gets the log lines only, never the console's output stream.
func TestLogSkipsOut(t *testing.T) {
	var rec recorder
	log := NewLog(&rec, Options{TTY: true})
	for _, n := range []any{events.Analysed{Loop: 1}, events.LiveStarted{Agent: "A"}, output("x"), events.LiveEnded, events.FilesChanged{Count: 1}} {
		show(log, t0, n)
	}
	if want := logged("INFO 📺 Live output mode enabled - showing A streaming..."); rec.String() != want {
		t.Errorf("got %q\nwant %q", rec.String(), want)
	}
}

// Every phrase has words.
func TestPhrasesComplete(t *testing.T) {
	var r renderer
	for p := events.RateLimitReset; p <= events.StreamCollapsed; p++ {
		if len(r.phrase(p)) == 0 {
			t.Errorf("phrase %d renders nothing", p)
		}
	}
}
