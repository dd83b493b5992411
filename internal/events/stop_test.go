package events

import (
	"errors"
	"fmt"
	"io/fs"
	"syscall"
	"testing"
	"time"
)

// errNoSpace is a write error as the supervisor reports it: its own
// prefix around the writer's error, which names the file.
var errNoSpace = fmt.Errorf("output could not be written: %w", &fs.PathError{Op: "write", Path: ".ralph/logs/o.log", Err: syscall.ENOSPC})

// The golden sentences of the stops: the final "ralph_loop: ..." line and
// run_finished's message say exactly what the loop has always said.
func TestStopSentence(t *testing.T) {
	weekly, used := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC), 92.5
	tests := []struct {
		s    Stop
		want string
	}{
		{Stop{}, ""},
		{Stop{Kind: StopMaxLoops, Calls: 2, Limit: 2}, "stopped after 2 agent calls (--max-loops 2)"},
		{Stop{Kind: StopMaxCost, Spent: 0.01234, Budget: 0.01}, "cost budget reached: $0.0123 spent of $0.0100 (--max-cost)"},
		{Stop{Kind: StopMaxTokens, Tokens: 3080, TokenLimit: 3000}, "token budget reached: 3080 tokens used of 3000 (--max-tokens)"},
		{Stop{Kind: StopStalled, Calls: 3, Limit: 3}, "stalled: 3 iterations in a row with the same reply and no change in git (STALL_LIMIT=3)"},
		{Stop{Kind: StopIdle, Idle: 2*time.Hour + 499*time.Millisecond, IdleMax: 2 * time.Hour}, "idle for 2h0m0s (IDLE_MAX=2h0m0s); nothing left to do"},
		{Stop{Kind: StopGaveUp, Agent: "Claude Code", Failures: 5, Last: Failure{Kind: CallInactive, Code: 143, Inactivity: 5 * time.Minute}, Log: ".ralph/logs/claude_err.log"},
			"Claude Code failed 5 times in a row (last: timed out (no output for 5m0s), code 143); check .ralph/logs/claude_err.log and the agent's setup, then run ralph_loop again"},
		{Stop{Kind: StopGaveUp, Agent: "Codex", Failures: 1, Last: Failure{Kind: CallTooLarge, Code: 143, MaxMB: 50}, Log: "e.log"},
			"Codex failed 1 times in a row (last: output too large (more than MAX_OUTPUT_MB=50), code 143); check e.log and the agent's setup, then run ralph_loop again"},
		{Stop{Kind: StopNotStored, Failures: 3, Err: errNoSpace, DiskFull: true},
			"the agent's output could not be stored 3 times in a row (write .ralph/logs/o.log: no space left on device); free disk space, then run ralph_loop again"},
		{Stop{Kind: StopNotStored, Failures: 2, Err: errors.New("read-only file system")},
			"the agent's output could not be stored 2 times in a row (read-only file system); make .ralph/ writable, then run ralph_loop again"},
		{Stop{Kind: StopDenied, Commands: "rm, git push"}, "permission denied: rm, git push (allow the tools in ALLOWED_TOOLS, then run again)"},
		{Stop{Kind: StopUsageLimit}, "stopped at the usage limit; its reset time was not reported: run ralph_loop again once it has reset"},
		{Stop{Kind: StopUsageLimit, Usage: UsageWindow{Window: "five_hour", ResetsAt: &weekly}}, "stopped at the usage limit of the five_hour window; it resets at 2026-03-01 09:00 UTC: run ralph_loop again after the reset"},
		{Stop{Kind: StopUsageTooFar, Usage: UsageWindow{Window: "seven_day", ResetsAt: &weekly}, MaxWait: 6 * time.Hour},
			"usage limit reached in the seven_day window; it resets at 2026-03-01 09:00 UTC, later than USAGE_LIMIT_MAX_WAIT=6h0m0s: run ralph_loop again after the reset"},
		{Stop{Kind: StopUsageTooFar, Usage: UsageWindow{Window: "unknown"}, MaxWait: 30 * time.Minute},
			"usage limit reached in the unknown window; its reset time was not reported and the default wait of 1h is longer than USAGE_LIMIT_MAX_WAIT=30m0s: run ralph_loop again later"},
		{Stop{Kind: StopUsagePercent, Usage: UsageWindow{Window: "primary", UsedPercent: &used, ResetsAt: &weekly}, StopPercent: 90},
			"usage of the primary window reached 92.5% (USAGE_STOP_PERCENT=90); it resets at 2026-03-01 09:00 UTC: run ralph_loop again after the reset"},
		{Stop{Kind: StopUsageWarning, Usage: UsageWindow{Window: "five_hour"}},
			"usage warning for the five_hour window (USAGE_WARNING_ACTION=stop); its reset time was not reported: run ralph_loop again after the reset"},
		{Stop{Kind: StopBreaker, Err: errors.New("circuit breaker is OPEN: no progress")}, "circuit breaker is OPEN: no progress"},
		// The breaker that opens on held completions names them.
		{Stop{Kind: StopBreaker, Err: errors.New("circuit breaker open: No recovery"), Claims: &Claims{Count: 4, Since: 2, Gate: "TEST_COMMAND", Command: "go test ./..."}},
			"circuit breaker open: No recovery; the agent claimed done 4 times while TEST_COMMAND `go test ./...` fails; nothing changed since loop 2"},
		{Stop{Kind: StopUnproven, Claims: &Claims{Count: 2, Open: 5, Total: 5, Strict: true}},
			"not done: the agent claimed done 2 times with 5 of 5 tasks open in @fix_plan.md; nothing changed since the run started (COMPLETION_MODE=strict); finish the open tasks or take them out of the plan, then run ralph_loop again"},
		{Stop{Kind: StopUnproven, Claims: &Claims{Count: 2, Since: 1, Gate: "QUALITY_GATES", Command: "npm run lint", Strict: true}},
			"not done: the agent claimed done 2 times while QUALITY_GATES `npm run lint` fails; nothing changed since loop 1 (COMPLETION_MODE=strict); make the failing check pass, then run ralph_loop again"},
		{Stop{Kind: StopUnproven, Claims: &Claims{Count: 2, Since: 1, Gate: "TESTS_STATUS", Strict: true}},
			"not done: the agent claimed done 2 times while it reported TESTS_STATUS: FAILING; nothing changed since loop 1 (COMPLETION_MODE=strict); make the failing check pass, then run ralph_loop again"},
		{Stop{Kind: StopOutage, Agent: "Claude Code", Failures: 14, Outage: 6*time.Hour + 300*time.Millisecond, OutageMax: 6 * time.Hour,
			Cause: "the provider is overloaded", Said: "API Error: 529 Overloaded"},
			"Claude Code's provider has been failing for 6h0m0s, OUTAGE_MAX=6h0m0s (14 tries; last: the provider is overloaded — it said: API Error: 529 Overloaded); run ralph_loop again once it is back"},
		{Stop{Kind: StopPermanent, Agent: "Claude Code", Cause: "Claude Code is not logged in or its API key is invalid",
			Fix: "run `claude` once and /login (or set a valid ANTHROPIC_API_KEY)", Said: "Invalid API key · Please run /login"},
			"Claude Code is not logged in or its API key is invalid: run `claude` once and /login (or set a valid ANTHROPIC_API_KEY) — it said: Invalid API key · Please run /login"},
		{Stop{Kind: StopSignal, Signal: "SIGTERM"}, "stopped by SIGTERM"},
		{Stop{Kind: StopError, Err: errors.New("prompt unreadable")}, "prompt unreadable"},
		{Stop{Kind: StopError}, ""},
	}
	for _, tc := range tests {
		if got := tc.s.Sentence(); got != tc.want {
			t.Errorf("Sentence of %+v\n got %q\nwant %q", tc.s, got, tc.want)
		}
	}
}

// A failed call is worded by how it failed, and an exited one by its
// code, as the bash loop words exit codes (bmalph shows them).
func TestFailureWords(t *testing.T) {
	tests := []struct {
		f    Failure
		want string
	}{
		{Failure{Code: 0}, "reported an error"}, // exit 0, yet it failed: an API error in its result
		{Failure{Kind: CallExited, NoRequest: true}, "did nothing: it answered as if it had been given no prompt"},
		{Failure{Code: 1}, "error"},
		{Failure{Code: 124}, "timed out"},
		{Failure{Code: 130}, "interrupted (SIGINT)"},
		{Failure{Code: 137}, "killed (OOM or SIGKILL)"},
		{Failure{Code: 143}, "terminated (SIGTERM)"},
		{Failure{Code: 2}, "error (exit 2)"},
		{Failure{Code: -1}, "error (exit -1)"},
		{Failure{Kind: CallTimedOut, Code: 124}, "timed out"},
		{Failure{Kind: CallInactive, Code: 143, Inactivity: 90 * time.Second}, "timed out (no output for 1m30s)"},
		{Failure{Kind: CallNotStarted, Code: 127}, "could not start"},
		{Failure{Kind: CallTooLarge, Code: 143, MaxMB: 1}, "output too large (more than MAX_OUTPUT_MB=1)"},
		{Failure{Kind: CallNotStored, Code: 0}, "output could not be stored"},
	}
	for _, tc := range tests {
		if got := tc.f.Words(); got != tc.want {
			t.Errorf("Words of %+v = %q, want %q", tc.f, got, tc.want)
		}
	}
}
