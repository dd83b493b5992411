package events

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"math"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// golden renders lines for the goldens: a log line as "LEVEL text" (as
// bmalph reads "[stamp] [LEVEL] text"), the others by how they are shown.
func golden(ls []Line) []string {
	var out []string
	for _, l := range ls {
		switch l.Show {
		case Log:
			out = append(out, string(l.Level)+" "+l.Text)
		case Output:
			out = append(out, "OUT"+colourNames[l.Colour]+" "+l.Text)
		case Countdown:
			out = append(out, fmt.Sprintf("COUNTDOWN %s %s (%v left)", l.Level, l.Text, l.Left))
		case CountdownOver:
			out = append(out, "COUNTDOWN OVER")
		case Ticking:
			out = append(out, "TICKING "+l.Text)
		case TickingOver:
			out = append(out, "TICKING OVER")
		}
	}
	return out
}

var colourNames = map[Colour]string{Red: "(red)", Yellow: "(yellow)", Blue: "(blue)", Purple: "(purple)"}

func condition(s Stop) End                      { return End{Stop: &s, Condition: true} }
func completion(reason string, ev Evidence) End { return End{Reason: reason, Evidence: &ev} }
func usageWait(u UsageWindow, warning bool) Wait {
	return Wait{Kind: "usage_limit", Usage: &u, Warning: warning}
}
func gateFailure(gate, cmd string, code int) GateFailure {
	return GateFailure{Gate: gate, Command: cmd, ExitCode: code}
}

// wordsCase is one value and its golden words: method is the method
// that words it ("" for Lines), m the moment it is given, if it takes one.
type wordsCase struct {
	v      any
	method string
	m      Moment
	want   []string
}

// lines calls the case's method.
func (c wordsCase) lines() []Line {
	method := c.method
	if method == "" {
		method = "Lines"
	}
	f := reflect.ValueOf(c.v).MethodByName(method)
	var args []reflect.Value
	if f.Type().NumIn() == 1 {
		args = append(args, reflect.ValueOf(c.m))
	}
	return f.Call(args)[0].Interface().([]Line)
}

// wordsCases are the golden words of every notice and happening: the
// words, levels and console output the loop has always shown (bmalph
// parses the "[stamp] [LEVEL] msg" lines).
func wordsCases() []wordsCase {
	until := time.Date(2030, 1, 2, 15, 4, 5, 0, time.Local)
	projAt := time.Date(2026, 2, 18, 16, 40, 0, 0, time.Local)
	warnPct, warnReset, stopPct := 81.0, time.Date(2026, 11, 25, 5, 0, 0, 0, time.UTC), 92.0
	test := gateFailure("TEST_COMMAND", "go test ./...", 1)
	lint := GateFailure{Gate: "QUALITY_GATES", Command: "npm run\x1b[2Jlint", ExitCode: 124, TimedOut: true}
	log := ".ralph/logs/quality_gates_x.log"
	plan := PlanCount{Done: 2, Total: 2, Have: true}
	box := "╔════════════════════════════════════════════════════════════╗\n"
	boxEnd := "╚════════════════════════════════════════════════════════════╝\n"
	return []wordsCase{
		{v: Logged{Level: Success, Text: "100% done %d"}, want: []string{"SUCCESS 100% done %d"}},
		{v: Start{}, want: []string{"INFO Starting main loop..."}},
		{v: RateLimitReset, want: []string{"SUCCESS Rate limit reset! Ready for new calls."}},
		{v: Wait{Kind: WaitPause}, method: "StartLines", want: []string{"WARN Paused (ralph_loop --pause). Waiting; run 'ralph_loop --resume' in this project to continue."}},
		{v: Wait{Kind: WaitPause}, method: "EndLines", want: []string{"SUCCESS Resumed."}},
		{v: LiveNeedsJSON, want: []string{"WARN Live mode requires JSON output format. Overriding text → json for this session."}},
		{v: GateBlocksCompletion, want: []string{"WARN Quality gate block: suppressing completion signals"}},
		{v: GateWithholdsProgress, want: []string{"WARN Quality gate circuit-breaker: overriding progress signals"}},
		// A call that opened the breaker says it halts the run (a read-only
		// one why); a read-only call that did not is retried.
		{v: Call{Outcome: IterationTimedOut, Iteration: &Iteration{Outcome: "read_only_timeout"}, BreakerOpened: true, ResetCommand: "ralph_loop --reset-circuit"}, want: []string{
			"ERROR 🛑 Circuit breaker has opened - halting loop", "INFO Run 'ralph_loop --reset-circuit' to reset the circuit breaker after addressing issues",
			"ERROR Circuit breaker opened after repeated read-only timeouts"}},
		{v: Call{Outcome: IterationTimedOut, Iteration: &Iteration{Outcome: "read_only_timeout"}}, want: []string{"WARN Write heartbeat: read-only loop, retrying with write-early context"}},
		{v: Call{Outcome: IterationCompleted, Iteration: &Iteration{Outcome: "circuit_breaker_trip"}, BreakerOpened: true, ResetCommand: "ralph_loop --reset-circuit"}, want: []string{
			"ERROR 🛑 Circuit breaker has opened - halting loop", "INFO Run 'ralph_loop --reset-circuit' to reset the circuit breaker after addressing issues"}},
		{v: DenialsNotCleared, want: []string{"WARN Failed to clear permission denial markers from response analysis"}},
		{v: Call{Outcome: IterationFailed, Agent: "Codex", Limit: &UsageWindow{Window: "primary", Status: "rejected"}}, want: []string{"ERROR 🚫 Codex usage limit reached (the primary window)"}},
		{v: Call{Outcome: IterationFailed, Agent: "Claude Code", Limit: &UsageWindow{Window: "unknown"}}, want: []string{"ERROR 🚫 Claude Code usage limit reached (a window the CLI did not name)"}},
		{v: usageWait(UsageWindow{Window: "five_hour", ResetsAt: &warnReset}, false), method: "LimitLines", want: []string{"WARN 🛑 Usage limit reached for the five_hour window; it resets at 2026-11-25 05:00 UTC"}},
		{v: usageWait(UsageWindow{Window: "unknown"}, false), method: "LimitLines", want: []string{"WARN 🛑 Usage limit reached; its reset time was not reported"}},
		{v: End{Stop: &Stop{Kind: StopUsageLimit}}, want: []string{"INFO User chose to exit. Exiting loop..."}},
		{v: StreamKept, want: []string{"INFO Keeping full stream output for shared response analysis"}},
		{v: StreamResultInvalid, want: []string{"WARN Final result record was invalid JSON, keeping full stream output"}},
		{v: StreamCollapsed, want: []string{"INFO Collapsed streamed response to the final result record"}},
		{v: Starting{Agent: "Claude Code", MaxCalls: 100, LogsDir: ".ralph/logs", Status: ".ralph/status.json"}, want: []string{
			"SUCCESS 🚀 Ralph loop starting with Claude Code", "INFO Max calls per hour: 100",
			"INFO Logs: .ralph/logs/ | Status: .ralph/status.json"}},
		{v: Starting{Agent: "Codex", IgnoredTools: true, MaxCalls: 5, LogsDir: "l", Status: "s"}, want: []string{
			"WARN ALLOWED_TOOLS/--allowed-tools is ignored by Codex.", "SUCCESS 🚀 Ralph loop starting with Codex",
			"INFO Max calls per hour: 5", "INFO Logs: l/ | Status: s"}},
		{v: RootRefusal{Problem: "running as root with X: Claude Code refuses every call as root", Fix: "run it as a normal user"}, want: []string{
			"WARN Running as root with X: Claude Code refuses every call as root; run it as a normal user"}},
		{v: StartupFailed{Err: errors.New("unknown driver \"x\"")}, want: []string{`ERROR unknown driver "x"`}},
		{v: StartupFailed{Check: GitMissing}, want: []string{"ERROR git is not installed or not on PATH. Install git (e.g. apt-get install git) and retry."}},
		{v: StartupFailed{Check: NoGitRepo, Path: "/p"}, want: []string{"ERROR No git repository found in /p.",
			"ERROR Ralph tracks progress with git. Create one with: git init && git add -A && git commit -m 'initial commit'"}},
		{v: StartupFailed{Check: NoCommits}, want: []string{"ERROR Git repository has no commits.",
			"ERROR Ralph compares each loop's changes against HEAD. Make a first commit: git add -A && git commit -m 'initial commit'"}},
		{v: StartupFailed{Check: NoAgentCommand}, want: []string{`ERROR PLATFORM_DRIVER=command needs AGENT_COMMAND (e.g. AGENT_COMMAND="my-agent --flag" in .ralph/.ralphrc)`}},
		{v: StartupFailed{Check: PromptMissing, Path: ".ralph/PROMPT.md", Restore: ".ralph/PROMPT.md"}, want: []string{
			"ERROR Prompt file '.ralph/PROMPT.md' not found: this bmalph/Ralph project is missing .ralph/PROMPT.md; create it (the instructions the agent gets each loop), or run ralph_loop --init (in a bmalph project: bmalph init) to write the default one"}},
		{v: StartupFailed{Check: PromptMissing, Path: "P.md"}, want: []string{
			"ERROR Prompt file 'P.md' not found: this directory is not a bmalph/Ralph project; run ralph_loop --init (or bmalph init) here to set one up, or change to a Ralph project's directory"}},
		{v: TempFilesRemoved{Count: 2}, want: []string{"INFO Removed 2 temp file(s) left by an interrupted write"}},
		{v: LoopMark{Loop: 3}, want: []string{"LOOP === Starting Loop #3 ==="}},
		{v: LoopMark{Loop: 3, Done: true}, want: []string{"LOOP === Completed Loop #3 ==="}},
		{v: Interrupted{Signal: "SIGINT"}, want: []string{"INFO Ralph loop interrupted by SIGINT. Cleaning up..."}},
		{v: Interrupted{Signal: "SIGTERM", Blocked: true}, want: []string{"INFO Ralph loop interrupted by SIGTERM while blocked. Exiting without waiting."}},
		{v: BreakerHalted{}, want: []string{"ERROR 🛑 Circuit breaker has opened - execution halted"}},
		{v: GracefulExit{Reason: "plan_complete"}, want: []string{"SUCCESS 🏁 Graceful exit triggered: plan_complete"}},
		{v: completion("plan_complete", Evidence{}), m: Moment{Snapshot: Snapshot{Loop: 4, Calls: 5, CallsThisHour: 4}}, want: []string{
			"SUCCESS 🎉 Ralph has completed the project! Final stats:", "INFO   - Total loops: 4",
			"INFO   - API calls used: 5", "INFO   - Exit reason: plan_complete",
			"SUCCESS ✅ Completed (plan_complete): no tasks in @fix_plan.md; no quality gates configured"}},
		// Every call counts, the failed ones too.
		{v: completion("plan_complete", Evidence{}), m: Moment{Snapshot: Snapshot{Loop: 8, Calls: 8, FailedCalls: 3}}, want: []string{
			"SUCCESS 🎉 Ralph has completed the project! Final stats:", "INFO   - Total loops: 8",
			"INFO   - API calls used: 8 (3 failed)", "INFO   - Exit reason: plan_complete",
			"SUCCESS ✅ Completed (plan_complete): no tasks in @fix_plan.md; no quality gates configured"}},
		// A --goal run rests on its check.
		{v: completion("goal_met", Evidence{Plan: PlanCount{Done: 1, Total: 1, Have: true}, Check: "go test ./...", Gates: "pass", Mode: "block"}), want: []string{
			"SUCCESS 🎉 Ralph has completed the project! Final stats:", "INFO   - Total loops: 0 (no agent call was needed)", "INFO   - API calls used: 0", "INFO   - Exit reason: goal_met",
			"SUCCESS ✅ Completed (goal_met): the goal's check `go test ./...` passes"}},
		{v: Wait{Kind: "rate_limit", Delay: 90*time.Second + time.Millisecond}, method: "LimitLines", m: Moment{Snapshot: Snapshot{CallsThisHour: 3, MaxCalls: 3}}, want: []string{
			"WARN Rate limit reached (3/3). Waiting for reset...", "INFO Sleeping for 91 seconds until next hour..."}},
		{v: condition(Stop{Kind: StopMaxLoops, Calls: 2, Limit: 2}), want: []string{"INFO Max loops reached: stopped after 2 agent calls (--max-loops 2)"}},
		{v: condition(Stop{Kind: StopMaxLoops, Calls: 1, Limit: 1}), want: []string{"INFO Max loops reached: stopped after 1 agent call (--max-loops 1)"}},
		// Every stop the person asked for with a setting is an INFO: nothing went wrong.
		{v: condition(Stop{Kind: StopMaxCost, Spent: 0.8, Budget: 0.8}), want: []string{"INFO cost budget reached: $0.8000 spent of $0.8000 (--max-cost)"}},
		{v: condition(Stop{Kind: StopMaxTokens, Tokens: 3080, TokenLimit: 3080}), want: []string{"INFO token budget reached: 3080 tokens used of 3080 (--max-tokens)"}},
		{v: condition(Stop{Kind: StopIdle, Idle: 90*time.Second + 400*time.Millisecond, IdleMax: 90 * time.Second}), want: []string{"INFO idle for 1m30s (IDLE_MAX=1m30s); nothing left to do"}},
		{v: condition(Stop{Kind: StopUsagePercent, Usage: UsageWindow{Window: "primary", UsedPercent: &stopPct, ResetsAt: &warnReset}, StopPercent: 90}), want: []string{
			"INFO usage of the primary window reached 92% (USAGE_STOP_PERCENT=90); it resets at 2026-11-25 05:00 UTC: run ralph_loop again after the reset"}},
		{v: condition(Stop{Kind: StopUsageWarning, Usage: UsageWindow{Window: "five_hour"}}), want: []string{
			"INFO usage warning for the five_hour window (USAGE_WARNING_ACTION=stop); its reset time was not reported: run ralph_loop again after the reset"}},
		// A limit the provider set, reset too late to wait for: still a warning.
		{v: condition(Stop{Kind: StopUsageTooFar, Usage: UsageWindow{Window: "seven_day", ResetsAt: &warnReset}, MaxWait: 6 * time.Hour}), want: []string{
			"WARN usage limit reached in the seven_day window; it resets at 2026-11-25 05:00 UTC, later than USAGE_LIMIT_MAX_WAIT=6h0m0s: run ralph_loop again after the reset"}},
		{v: condition(Stop{Kind: StopStalled, Calls: 3, Limit: 3}), want: []string{"ERROR 🛑 stalled: 3 iterations in a row with the same reply and no change in git (STALL_LIMIT=3)"}},
		{v: condition(Stop{Kind: StopGaveUp, Agent: "Codex", Failures: 3, Last: Failure{Code: 2}, Log: ".ralph/logs/e.log"}), want: []string{
			"ERROR 🛑 Codex failed 3 times in a row (last: error (exit 2), code 2); check .ralph/logs/e.log and the agent's setup, then run ralph_loop again"}},
		{v: condition(Stop{Kind: StopNotStored, Failures: 3, Err: errNoSpace, DiskFull: true}), want: []string{
			"ERROR 🛑 the agent's output could not be stored 3 times in a row (write .ralph/logs/o.log: no space left on device); free disk space, then run ralph_loop again"}},
		{v: Stalled{Count: 1, Limit: 3}, want: []string{"WARN Stalled iteration (1 of 3): same reply, no change in git"}},
		// A back-off says why it waits as it starts; other waits have their countdown.
		{v: Wait{Kind: "failure_backoff", Delay: 30 * time.Second, Tries: 1, MaxTries: 5}, method: "StartLines", want: []string{"WARN Execution failed, waiting 30s before retry (failure 1 of 5)..."}},
		{v: Wait{Kind: "failure_backoff", Delay: time.Minute, Tries: 7, MaxTries: math.MaxInt}, method: "StartLines", want: []string{"WARN Execution failed, waiting 1m0s before retry (failure 7 of unlimited)..."}},
		{v: Wait{Kind: "outage_backoff", Cause: "the provider is overloaded", Said: "API Error: 529 Overloaded", Delay: 4 * time.Second,
			Lasted: 70*time.Second + 200*time.Millisecond, OutageMax: 6 * time.Hour, Tries: 3}, method: "StartLines", want: []string{
			"WARN ⏳ Provider outage: the provider is overloaded — it said: API Error: 529 Overloaded; next try in 4s (try 3, failing for 1m10s; stops at OUTAGE_MAX=6h0m0s)"}},
		{v: Wait{Kind: "loop_delay", Delay: time.Minute}, method: "StartLines", want: nil},
		{v: Wait{Kind: "outage_backoff", Cause: "the provider's API could not be reached", Delay: 30 * time.Minute, Lasted: 2 * time.Hour, Tries: 12}, method: "StartLines", want: []string{
			"WARN ⏳ Provider outage: the provider's API could not be reached; next try in 30m0s (try 12, failing for 2h0m0s; no OUTAGE_MAX: waiting as long as it takes)"}},
		// A strict run stopped on claims it could not prove: a fault (ERROR).
		{v: condition(Stop{Kind: StopUnproven, Claims: &Claims{Count: 2, Open: 1, Total: 3, Strict: true}}), want: []string{
			"ERROR 🛑 not done: the agent claimed done 2 times with 1 of 3 tasks open in @fix_plan.md; nothing changed since the run started (COMPLETION_MODE=strict); finish the open tasks or take them out of the plan, then run ralph_loop again"}},
		{v: condition(Stop{Kind: StopPermanent, Cause: "Codex is not logged in or its API key is invalid", Fix: "run `codex login` (or set a valid OPENAI_API_KEY)"}), want: []string{
			"ERROR 🛑 Codex is not logged in or its API key is invalid: run `codex login` (or set a valid OPENAI_API_KEY)"}},
		{v: UsageLimitWait{Wait: 59*time.Minute + 40*time.Second, Until: until}, want: []string{"INFO Waiting 1h0m0s before retrying (until 15:04:05)..."}},
		{v: UsageLimitWait{Wait: 8*time.Second + 300*time.Millisecond, Until: until}, want: []string{"INFO Waiting 8s before retrying (until 15:04:05)..."}},
		{v: UsageLimitWait{Wait: 87*time.Second + 300*time.Millisecond, Until: until}, want: []string{"INFO Waiting 1m27s before retrying (until 15:04:05)..."}},
		{v: usageWait(UsageWindow{Window: "five_hour", UsedPercent: &warnPct, ResetsAt: &warnReset}, true), method: "LimitLines", want: []string{"WARN ⚠️ Usage warning for the five_hour window (81% used); it resets at 2026-11-25 05:00 UTC: waiting for it (USAGE_WARNING_ACTION=wait)"}},
		{v: WaitSkipped{Window: 2 * time.Second}, want: []string{"INFO Wait skipped (Ctrl+C). Starting the next call in 2 s — press Ctrl+C again to stop."}},
		{v: CallStarting{Agent: "Claude Code", Call: 2, MaxCalls: 100, Timeout: 15 * time.Minute}, want: []string{
			"LOOP Executing Claude Code (Call 2/100)", "INFO ⏳ Starting Claude Code execution... (timeout: 15m)"}},
		// A call after failed ones says how many in a row.
		{v: CallStarting{Agent: "Claude Code", Call: 2, MaxCalls: 100, Timeout: 15 * time.Minute, Retry: 3}, want: []string{
			"LOOP Executing Claude Code (Call 2/100, retry 3)", "INFO ⏳ Starting Claude Code execution... (timeout: 15m)"}},
		{v: CLIMode{Format: "json"}, want: []string{"INFO Using modern CLI mode (json output)"}},
		{v: NoLiveStreaming{Agent: "Aider"}, want: []string{"WARN Aider does not support structured live streaming. Falling back to background mode."}},
		{v: WriteTimeoutClamped{Write: 20 * time.Minute, Timeout: 15 * time.Minute, Used: 14 * time.Minute}, want: []string{"WARN WRITE_TIMEOUT_MINUTES (20) >= CLAUDE_TIMEOUT_MINUTES (15), using 14"}},
		{v: OutputNotStored{Err: errNoSpace, DiskFull: true}, want: []string{
			"ERROR 💾 Agent output could not be stored (write .ralph/logs/o.log: no space left on device); the call counts as failed — free disk space, then run ralph_loop again"}},
		{v: OutputNotStored{Err: errors.New("open .ralph/logs/o.log: permission denied")}, want: []string{
			"ERROR 💾 Agent output could not be stored (open .ralph/logs/o.log: permission denied); the call counts as failed — make .ralph/ writable, then run ralph_loop again"}},
		{v: AgentSucceeded{Agent: "Codex"}, want: []string{"SUCCESS ✅ Codex execution completed successfully"}},
		{v: Analysing{Agent: "Codex"}, want: []string{"INFO 🔍 Analyzing Codex response..."}},
		{v: OutputErrors{File: ".ralph/logs/o.log", Errors: []string{"a", "b"}}, want: []string{"WARN Errors detected in output, check: .ralph/logs/o.log", "DEBUG   1: a", "DEBUG   2: b"}},
		{v: UnknownState{Name: "sleepy"}, want: []string{`INFO Agent reported unknown state "sleepy" (ignored)`}},
		{v: Call{Outcome: IterationIdle, Idle: 2}, want: []string{"INFO 💤 Agent is idle (2 in a row)"}},
		{v: DoneMatched{Pattern: "ALL DONE"}, want: []string{`SUCCESS Done pattern "ALL DONE" matched the agent's reply`}},
		// A failed call says how, then what to do when the loop stopped
		// it for its output, then the end of its stderr.
		{v: Call{Agent: "Codex", Failure: &Failure{Kind: CallTimedOut, Code: 124}}, want: []string{"ERROR ❌ Codex exited: timed out (code 124)"}},
		{v: Call{Agent: "Codex", Failure: &Failure{Code: 1}}, want: []string{"ERROR ❌ Codex exited: error (code 1)"}},
		{v: Call{Agent: "Codex", Failure: &Failure{Code: 0}}, want: []string{"ERROR ❌ Codex exited: reported an error (code 0)"}},
		{v: Call{Agent: "Codex", Failure: &Failure{Kind: CallNotStarted, Code: 127, Err: errors.New("no such file")}}, want: []string{
			"ERROR ❌ Codex exited: could not start (code 127)", "ERROR   no such file"}},
		{v: Call{Agent: "Codex", Failure: &Failure{Code: 2}, StderrTail: "x | y", StderrLog: ".ralph/logs/e.log"}, want: []string{
			"ERROR ❌ Codex exited: error (exit 2) (code 2)", "ERROR   stderr (last 3 lines): x | y", "ERROR   full stderr log: .ralph/logs/e.log"}},
		{v: Call{Agent: "Codex", Failure: &Failure{Kind: CallTooLarge, Code: 143, MaxMB: 50}, Iteration: &Iteration{OutputFile: ".ralph/logs/out.log"},
			StderrTail: "killed", StderrLog: "e.log"}, want: []string{
			"ERROR ❌ Codex exited: output too large (more than MAX_OUTPUT_MB=50) (code 143)",
			"ERROR   the agent printed more than MAX_OUTPUT_MB=50 MB and was stopped; .ralph/logs/out.log keeps the head and the tail (raise MAX_OUTPUT_MB, or 0 for no limit, if this output was expected)",
			"ERROR   stderr (last 3 lines): killed", "ERROR   full stderr log: e.log"}},
		{v: Call{Agent: "Claude Code", Failure: &Failure{Kind: CallNotStored, Code: -1, Err: errNoSpace, DiskFull: true}}, want: []string{
			"ERROR ❌ Claude Code exited: output could not be stored (code -1)",
			"ERROR 💾 Agent output could not be stored (write .ralph/logs/o.log: no space left on device); the call counts as failed — free disk space, then run ralph_loop again"}},
		{v: NoWrites{After: 10 * time.Minute}, want: []string{"WARN Write heartbeat: no file modifications in 10m"}},
		{v: BreakerChange{From: "CLOSED", To: "HALF_OPEN", Reason: "no progress"}, want: []string{"WARN Circuit breaker: CLOSED → HALF_OPEN (no progress)"}},
		{v: BreakerChange{From: "HALF_OPEN", To: "CLOSED", Reason: "progress", Closed: true}, want: []string{"SUCCESS Circuit breaker: HALF_OPEN → CLOSED (progress)"}},
		{v: PermissionDenied{Commands: "rm", Loop: 2, Halt: true}, want: []string{"ERROR 🚫 Permission denied - halting loop"}},
		{v: PermissionDenied{Commands: "rm, git push", Mode: "continue", Loop: 2}, want: []string{
			"WARN 🚫 Permission denied in loop #2: rm, git push", "WARN PERMISSION_DENIAL_MODE=continue - continuing execution"}},
		// DEBUG lines: the console shows them with --verbose only.
		{v: AgentFound{Agent: "claude", Version: "1.0", Path: "/bin/claude"}, want: []string{"DEBUG claude 1.0 at /bin/claude"}},
		{v: AgentFound{Agent: "claude", Version: "2.1.330", Path: "/bin/claude", From: "/lib/package.json"}, want: []string{"DEBUG claude 2.1.330 at /bin/claude (from /lib/package.json)"}},
		{v: LoopContext{Text: "ctx"}, want: []string{"DEBUG Loop context: ctx"}},
		{v: FilesChanged{Count: 3}, want: []string{"DEBUG Detected 3 unique files changed (commits + working tree) since loop start"}},
		{v: AgentWorking{Agent: "Codex"}, want: nil}, // the record written as the call starts
		{v: AgentWorking{Agent: "Codex", Elapsed: 20 * time.Second}, want: []string{"DEBUG Codex working... (20s elapsed)"}},
		{v: AgentWorking{Agent: "Codex", Last: strings.Repeat("x", 90), Elapsed: 30 * time.Second}, want: []string{"DEBUG Codex: " + strings.Repeat("x", 80) + "... (30s)"}},

		// The boxes, banners and the question go to the console's output
		// stream only, a box in its colour on a terminal.
		{v: Analysed{Loop: 7, ExitSignal: true, Confidence: 80, FilesChanged: 2,
			Summary: "Summary: Fixed the parser.\n---RALPH_STATUS---\nSTATUS: COMPLETE\n---END_RALPH_STATUS---"}, want: []string{
			"OUT(blue) " + box + "║           Response Analysis - Loop #7                      ║\n" + boxEnd,
			"OUT Exit Signal:      true\n", "OUT Completion:       80%\n", "OUT Test Only:        false\n",
			"OUT Files Changed:    2\n", "OUT Summary:          Fixed the parser.\n", "OUT \n"}},
		{v: Analysed{Loop: 1, Summary: "---RALPH_STATUS---\nEXIT_SIGNAL: false"}, want: []string{
			"OUT(blue) " + box + "║           Response Analysis - Loop #1                      ║\n" + boxEnd,
			"OUT Exit Signal:      false\n", "OUT Test Only:        false\n", "OUT Files Changed:    0\n", "OUT \n"}},
		{v: PermissionHelp{Agent: "Claude Code", Help: []string{"  1. Edit .ralphrc", "  2. Run again"}, ShowTools: true, AllowedTools: []string{"Write", "Bash(git *)"}}, want: []string{
			"OUT(red) " + box + "║  PERMISSION DENIED - Loop Halted                           ║\n" + boxEnd,
			"OUT Claude Code was denied permission to execute commands.\n\nTo fix this:\n",
			"OUT   1. Edit .ralphrc\n", "OUT   2. Run again\n", "OUT Current ALLOWED_TOOLS: Write,Bash(git *)\n"}},
		{v: LiveStarted{Agent: "Codex"}, want: []string{"INFO 📺 Live output mode enabled - showing Codex streaming...",
			"OUT(purple) ━━━━━━━━━━━━━━━━ Codex Output ━━━━━━━━━━━━━━━━\n"}},
		{v: LiveEnded, want: []string{"OUT(purple) \n━━━━━━━━━━━━━━━━ End of Output ━━━━━━━━━━━━━━━━━━━\n"}},
		{v: UsageLimitQuestion{Usage: UsageWindow{Window: "five_hour"}}, want: []string{
			"OUT \nThe usage limit of the five_hour window has been reached; its reset time was not reported.\nYou can either:\n  1) Wait for the limit to reset\n  2) Exit the loop and try again later\n\nChoose an option (1 or 2): "}},
		{v: UsageLimitNoAnswer, want: []string{"OUT \n", "INFO No answer within 30 seconds: waiting for the limit to reset."}},
		{v: BreakerChange{From: "CLOSED", To: "OPEN", Reason: "r", Report: []string{"a", "b"}}, want: []string{"OUT a\n", "OUT b\n", "WARN Circuit breaker: CLOSED → OPEN (r)"}},
		{v: BreakerHalted{Report: []string{"c"}}, want: []string{"OUT c\n", "ERROR 🛑 Circuit breaker has opened - execution halted"}},
		{v: BreakerOpenAtStart{Stop: Stop{Kind: StopBreaker, Err: errors.New("circuit breaker open: no progress (run ralph_loop --reset-circuit to continue)")}}, want: []string{
			"ERROR 🛑 Not starting: circuit breaker open: no progress (run ralph_loop --reset-circuit to continue)"}},
		{v: BreakerOpenAtStart{Stop: Stop{Kind: StopBreaker, Err: errors.New("circuit breaker open: no progress")}, Next: "Look at the last call first."}, want: []string{
			"ERROR 🛑 Not starting: circuit breaker open: no progress", "INFO Look at the last call first."}},
		// An empty or missing plan is warned of as the run starts.
		{v: EmptyPlan{File: "@fix_plan.md"}, want: []string{
			"WARN ⚠️ @fix_plan.md lists no task (no '- [ ] …' line): the agent has only the prompt to go on, and the run ends only when it says it is done (or the circuit breaker opens after a few calls without progress); add the tasks, one '- [ ] …' line each, and run again"}},
		{v: EmptyPlan{File: "@fix_plan.md", Missing: true}, want: []string{
			"WARN ⚠️ there is no @fix_plan.md: the agent has only the prompt to go on, and the run ends only when it says it is done (or the circuit breaker opens after a few calls without progress); add the tasks, one '- [ ] …' line each, and run again"}},
		{v: CallWindowReset{Hour: "2026112202"}, want: []string{"INFO Call counter reset for new hour: 02:00"}},
		// A wait's countdown and the call's ticking line: laid out by the
		// console (redrawn on a terminal; the countdown a line a minute
		// elsewhere).
		{v: WaitTick{Kind: "loop_delay", Left: 125*time.Second + 300*time.Millisecond}, want: []string{"COUNTDOWN INFO Next loop in: 00:02:05 (2m5.3s left)"}},
		{v: WaitTick{Kind: "idle_backoff", Left: time.Second}, want: []string{"COUNTDOWN INFO Idle; next iteration in: 00:00:01 (1s left)"}},
		{v: WaitOver{}, want: []string{"COUNTDOWN OVER"}},
		{v: CallTick{Agent: "OpenAI Codex", Elapsed: 65 * time.Second, Bytes: 12634, Tool: "command\x1b]0;pwned\x07_execution\n"}, want: []string{
			"TICKING ⏳ OpenAI Codex working: 00:01:05, 12.3 KB of output, last tool: command]0;pwned_execution"}},
		{v: CallTick{Agent: "A", Elapsed: time.Second, Bytes: 5 << 20}, want: []string{"TICKING ⏳ A working: 00:00:01, 5.0 MB of output"}},
		{v: CallTickOver{}, want: []string{"TICKING OVER"}},
		// The quality gates: a failed gate names its command and where its
		// whole output is; a held completion says what looked done and
		// which gate fails; a completed run's last line names its evidence.
		{v: GateFailed{Failure: test, Log: log}, want: []string{"WARN Quality gate failed: TEST_COMMAND `go test ./...` exited 1; full output: " + log}},
		{v: GateFailed{Failure: lint, Log: log}, want: []string{"WARN Quality gate failed: QUALITY_GATES `npm run [2Jlint` timed out (QUALITY_GATE_TIMEOUT); full output: " + log}},
		{v: GateFailed{Failure: GateFailure{Gate: "TESTS_STATUS", Reported: true}, Log: log}, want: []string{"WARN Quality gate failed: the agent reported TESTS_STATUS: FAILING"}},
		{v: CompletionHeld{Reason: "plan_complete", Plan: plan, Failures: []GateFailure{test, lint}, Log: log, Mode: "block"}, want: []string{
			"WARN Not done: plan 2/2 ticked, but TEST_COMMAND `go test ./...` exited 1 (and 1 more); going on (QUALITY_GATE_MODE=block); full output: " + log}},
		{v: CompletionHeld{Reason: "done_pattern", Plan: PlanCount{Done: 1, Total: 2, Have: true}, Failures: []GateFailure{test}, Mode: "circuit-breaker"}, want: []string{
			"WARN Not done: the agent reported completion (done_pattern), but TEST_COMMAND `go test ./...` exited 1; going on (QUALITY_GATE_MODE=circuit-breaker)"}},
		// COMPLETION_MODE=strict: open tasks refuse a claim; a failing gate
		// refuses it whatever QUALITY_GATE_MODE says.
		{v: CompletionHeld{Reason: "exit_signal", Plan: PlanCount{Done: 0, Total: 5, Have: true}, Mode: "warn", Strict: true, Open: 5}, want: []string{
			"WARN Not done: the agent reported completion (exit_signal), but 5 of 5 tasks in @fix_plan.md are open; going on (COMPLETION_MODE=strict)"}},
		{v: CompletionHeld{Reason: "plan_complete", Plan: plan, Failures: []GateFailure{test}, Mode: "warn", Strict: true}, want: []string{
			"WARN Not done: plan 2/2 ticked, but TEST_COMMAND `go test ./...` exited 1; going on (COMPLETION_MODE=strict)"}},
		// VERIFY_COMMAND's verdict on a task the agent ticked.
		{v: TaskChecked{Task: "Add \x1b[2Jlogin"}, want: []string{`SUCCESS ✅ Check passed: "Add  [2Jlogin" (VERIFY_COMMAND)`}},
		{v: TaskChecked{Task: "Task A", Failure: &GateFailure{Gate: "VERIFY_COMMAND", Command: "kill -SEGV $$", ExitCode: 139}, Log: ".ralph/logs/verify_x.log"}, want: []string{
			"WARN ❌ Check failed: \"Task A\": VERIFY_COMMAND `kill -SEGV $$` exited 139; the task is open again; full output: .ralph/logs/verify_x.log"}},
		{v: TaskChecked{Task: "Task A", Failure: &GateFailure{Gate: "VERIFY_COMMAND", Command: "sleep 9", ExitCode: 124, TimedOut: true}}, want: []string{
			"WARN ❌ Check failed: \"Task A\": VERIFY_COMMAND `sleep 9` timed out (VERIFY_TIMEOUT); the task is open again"}},
		{v: completion("plan_complete", Evidence{Plan: plan, Gates: "pass", Mode: "block", Repo: true, Commits: 1, Commit: "abc1234", Subject: "Add login"}), want: []string{
			"SUCCESS 🎉 Ralph has completed the project! Final stats:", "INFO   - Total loops: 0 (no agent call was needed)", "INFO   - API calls used: 0", "INFO   - Exit reason: plan_complete",
			"SUCCESS ✅ Completed (plan_complete): plan 2/2; quality gates passing; 1 commit this run: abc1234 Add login"}},
		{v: completion("plan_complete", Evidence{Plan: plan, Gates: "fail", Mode: "warn", Failures: []GateFailure{test}, Log: log, Repo: true, Commits: 3, Commit: "abc1234"}), want: []string{
			"SUCCESS 🎉 Ralph has completed the project! Final stats:", "INFO   - Total loops: 0 (no agent call was needed)", "INFO   - API calls used: 0", "INFO   - Exit reason: plan_complete",
			"WARN ⚠️ Completed (plan_complete) with failing quality gates, as QUALITY_GATE_MODE=warn allows: plan 2/2; quality gates FAILING: TEST_COMMAND `go test ./...` exited 1; full output: " + log + "; 3 commits this run, the last abc1234"}},
		// A switch between the main driver and FALLBACK_DRIVER.
		{v: DriverSwitch{From: "Claude Code", To: "OpenAI Codex", Why: SwitchUsageLimit, Until: until}, want: []string{
			"WARN 🔁 Claude Code is at its usage limit: going on with OpenAI Codex until 2030-01-02 15:04:05, then back to Claude Code"}},
		{v: DriverSwitch{From: "OpenAI Codex", To: "Claude Code", Why: SwitchUsageLimit}, want: []string{"WARN 🔁 OpenAI Codex is at its usage limit: going on with Claude Code"}},
		{v: DriverSwitch{From: "OpenAI Codex", To: "Claude Code", Why: SwitchReset}, want: []string{"SUCCESS 🔁 Claude Code's usage limit has reset: back to Claude Code (from OpenAI Codex)"}},
		{v: Review{Level: Warn, Text: "Review: 2 findings"}, want: []string{"WARN Review: 2 findings"}},
		// The agent's questions (TestQuestionLines has each way a wait ends).
		{v: QuestionCarried{Question: "Which?", Loop: 4}, want: []string{
			`WARN A question an earlier run asked (loop 4) is still open: "Which?"; no call until it is answered`}},
		{v: QuestionCarried{Question: "Which \x1b[2J?", Loop: 4, Answered: true}, want: []string{
			`INFO The question an earlier run asked (loop 4) was answered: its answer goes into the first call: "Which \u001b[2J?"`}},
		// The trackers' happenings (TestTrackedWords has each kind).
		{v: Task{Kind: TaskClaimed, Tracker: "github", Keys: []string{"#7"}, Title: "Fix it"}, want: []string{"INFO 📌 Claimed #7 (github) for the next call: Fix it"}},
		// The usage governor's projection (TestQuotaWords has its words).
		{v: Projection{Window: "five_hour", UsedPercent: 62.5, Estimated: true, Setting: "USAGE_LIMITS five_hour:soft:85", Kind: "soft", Percent: 85,
			ReachesAt: projAt, ResetsAt: projAt.Add(80 * time.Minute), PerHour: 12},
			m: Moment{TS: projAt.Add(-time.Hour)}, want: []string{
				"WARN 📈 Usage: at this rate (12%/h) the five_hour window reaches 85% (USAGE_LIMITS five_hour:soft:85) at 16:40, before it resets at 18:00 (now 62.5%, estimated)"}},
	}
}

func TestWords(t *testing.T) {
	for _, c := range wordsCases() {
		got := golden(c.lines())
		if strings.Join(got, "\x00") != strings.Join(c.want, "\x00") {
			t.Errorf("%#v %s:\n got %q\nwant %q", c.v, c.method, got, c.want)
		}
	}
}

// Every value that words itself (a method Lines, StartLines, EndLines or
// LimitLines) has a golden case above: a new line cannot go untested.
func TestEveryValueHasGoldenWords(t *testing.T) {
	covered := map[string]bool{}
	for _, c := range wordsCases() {
		method := c.method
		if method == "" {
			method = "Lines"
		}
		covered[reflect.TypeOf(c.v).Name()+"."+method] = true
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv == nil || !fd.Name.IsExported() || !strings.HasSuffix(fd.Name.Name, "Lines") {
				continue
			}
			typ := fd.Recv.List[0].Type
			if s, ok := typ.(*ast.StarExpr); ok {
				typ = s.X
			}
			key := typ.(*ast.Ident).Name + "." + fd.Name.Name
			n++
			if !covered[key] {
				t.Errorf("%s has no golden case in wordsCases", key)
			}
		}
	}
	if n < 40 {
		t.Fatalf("only %d wording methods found", n)
	}
}

// Every phrase has words.
func TestPhrasesComplete(t *testing.T) {
	for p := Phrase(1); p <= lastPhrase; p++ {
		if len(p.Lines()) == 0 {
			t.Errorf("phrase %d has no words", p)
		}
	}
}
