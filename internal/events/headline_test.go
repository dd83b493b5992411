package events

import (
	"errors"
	"testing"
	"time"
)

func TestHeadline(t *testing.T) {
	until := time.Date(2026, 11, 25, 3, 4, 5, 0, time.Local)
	snap := Snapshot{Loop: 4, TasksCompleted: 2, TasksTotal: 3, MaxCalls: 100}
	pct := 92.0
	stop := Stop{Kind: StopBreaker, Err: errors.New("circuit breaker open: no progress")}
	for _, tc := range []struct {
		e    Event
		want string
	}{
		{Event{Type: RunFinished, Snapshot: snap, Reason: "plan_complete", ExitCode: new(0)},
			"Ralph has completed the project (plan_complete; 4 loops, tasks 2/3)"},
		{Event{Type: RunFinished, Snapshot: snap, Reason: "stagnation_detected", ExitCode: new(2), Message: stop.Sentence()},
			"Ralph stopped: circuit breaker open: no progress (exit 2; 4 loops, tasks 2/3)"},
		{Event{Type: RunFinished, Snapshot: snap, Reason: "error", ExitCode: new(1)},
			"Ralph stopped: error (exit 1; 4 loops, tasks 2/3)"},
		{Event{Type: BreakerChanged, From: "HALF_OPEN", To: "OPEN", Reason: "no progress in 3 loops"},
			"Circuit breaker has opened - execution halted (no progress in 3 loops)"},
		{Event{Type: BreakerChanged, From: "OPEN", To: "HALF_OPEN", Reason: "cooldown elapsed"},
			"Circuit breaker: OPEN → HALF_OPEN (cooldown elapsed)"},
		{Event{Type: UsageLimited, Until: &until, Reason: "5-hour limit reached"},
			"Usage limit reached; waiting until 03:04:05: 5-hour limit reached"},
		{Event{Type: RateLimited, Snapshot: snap, Until: &until}, "Call limit reached (100 calls per hour); waiting until 03:04:05"},
		{Event{Type: RunStarted, Driver: "codex"}, "Ralph loop starting (codex)"},
		{Event{Type: Paused}, "Paused (ralph_loop --resume to go on)"},
		{Event{Type: Resumed}, "Resumed"},
		{Event{Type: IterationCompleted, Snapshot: snap}, "Loop #4 done; tasks 2/3"},
		{Event{Type: IterationFailed, Snapshot: snap, Reason: "error (exit 2)"}, "Loop #4 failed: error (exit 2)"},
		// A call the usage limit stopped has no reason of its own: its
		// outcome says it (it said "Loop #1 failed: ", a bare colon).
		{Event{Type: IterationFailed, Snapshot: Snapshot{Loop: 1}, Iteration: &Iteration{Outcome: "api_limit", DriverExitCode: new(1)}},
			"Loop #1 failed: usage limit (code 1)"},
		{Event{Type: IterationFailed, Snapshot: Snapshot{Loop: 1}}, "Loop #1 failed"},
		{Event{Type: RunFinished, Snapshot: Snapshot{Loop: 1, TasksTotal: 3}, Reason: "stagnation_detected", ExitCode: new(2), Message: stop.Sentence()},
			"Ralph stopped: circuit breaker open: no progress (exit 2; 1 loop, tasks 0/3)"},
		// A failure says what the console said of it: the exit code and the
		// end of the agent's stderr, made safe (it is the agent's text).
		{Event{Type: IterationFailed, Snapshot: snap, Reason: "error", DriverExitCode: new(1),
			StderrTail: "fatal: quota \x1b[31mexceeded\x1b[0m"}, `Loop #4 failed: error (code 1); stderr: fatal: quota \u001b[31mexceeded\u001b[0m`},
		{Event{Type: UsageUpdated, Snapshot: Snapshot{UsageLimits: []UsageWindow{
			{Driver: "codex", Window: "primary", Status: "allowed", UsedPercent: &pct, ResetsAt: &until},
			{Driver: "claude-code", Window: "seven_day", Status: "rejected"}}}},
			"Usage: codex primary 92% used (allowed), resets 2026-11-25 03:04 " + until.Format("MST") + "; claude-code seven_day (rejected)"},
		// The timeline's words for what the console counts down or marks.
		{Event{Type: IterationStarted, Snapshot: snap}, "Starting Loop #4"},
		{Event{Type: DelayStarted, Snapshot: snap, Wait: "loop_delay", DelaySecs: 10}, "Next loop in 00:00:10"},
		{Event{Type: DelayStarted, Snapshot: snap, Wait: "idle_backoff", DelaySecs: 90}, "Idle; next iteration in 00:01:30"},
		{Event{Type: DelayEnded, Snapshot: snap, Wait: "loop_delay", Skipped: true}, "Wait skipped (Ctrl+C)"},
		{Event{Type: DelayEnded, Snapshot: snap, Wait: "loop_delay"}, "delay ended (loop #4)"},
		{Event{Type: DriverSwitched, From: "claude-code", To: "codex", Why: "usage_limit", Until: &until},
			"Agent switched: claude-code → codex (usage limit) until 03:04:05"},
		{Event{Type: "some_new_type", Snapshot: snap}, "some new type (loop #4)"},
	} {
		if got := tc.e.Headline(); got != tc.want {
			t.Errorf("Headline(%s) = %q, want %q", tc.e.Type, got, tc.want)
		}
	}
}

// A value more than one surface shows is worded once: the console's
// breaker line, the headline (notifications, the dashboard's timeline) and
// --report say a transition in the same words; a usage window reads the
// same in a headline and in --status.
func TestOneWordingPerValue(t *testing.T) {
	ls := BreakerChange{From: "CLOSED", To: "HALF_OPEN", Reason: "no progress in 2 loops"}.Lines(Moment{})
	move := BreakerMove("CLOSED", "HALF_OPEN", "no progress in 2 loops")
	if len(ls) != 1 || ls[0].Text != "Circuit breaker: "+move {
		t.Fatalf("console breaker line %+v, want it to say %q", ls, move)
	}
	if h := (Event{Type: BreakerChanged, From: "CLOSED", To: "HALF_OPEN", Reason: "no progress in 2 loops"}).Headline(); h != ls[0].Text {
		t.Errorf("headline %q, console %q: not the same words", h, ls[0].Text)
	}
	pct := 92.5
	w := UsageWindow{Driver: "claude-code", Window: "five_hour", Status: "allowed_warning", UsedPercent: &pct}
	if h, want := (Event{Type: UsageUpdated, Snapshot: Snapshot{UsageLimits: []UsageWindow{w}}}).Headline(),
		"Usage: "+usageWindowLine(w); h != want {
		t.Errorf("usage headline %q, want %q", h, want)
	}
	if got, want := usageWindowLine(w), "claude-code five_hour 92.5% used (allowed_warning)"; got != want {
		t.Errorf("usageWindowLine = %q, want %q", got, want)
	}
}

// A completion that warn mode let through with failing gates says so in
// its notification; one with passing gates does not.
func TestHeadlineFailingGates(t *testing.T) {
	snap := Snapshot{Loop: 2, TasksCompleted: 2, TasksTotal: 2}
	e := Event{Type: RunFinished, Snapshot: snap, Reason: "plan_complete", ExitCode: new(0)}
	e.QualityGates = &Gates{OverallStatus: "fail", Mode: "warn", Failing: []string{"go test ./...", "npm run lint"}}
	want := "Ralph has completed the project (plan_complete; 2 loops, tasks 2/2) but quality gates FAIL (QUALITY_GATE_MODE=warn): `go test ./...`, `npm run lint`"
	if got := e.Headline(); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	e.QualityGates = &Gates{OverallStatus: "pass", Mode: "warn"}
	if got, want := e.Headline(), "Ralph has completed the project (plan_complete; 2 loops, tasks 2/2)"; got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}
