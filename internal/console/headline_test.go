package console

import (
	"errors"
	"testing"
	"time"

	"github.com/ralphloop/ralph_loop/internal/events"
)

func TestHeadline(t *testing.T) {
	until := time.Date(2026, 11, 25, 3, 4, 5, 0, time.Local)
	snap := events.Snapshot{Loop: 4, TasksCompleted: 2, TasksTotal: 3, MaxCalls: 100}
	pct := 92.0
	stop := events.Stop{Kind: events.StopBreaker, Err: errors.New("circuit breaker open: no progress")}
	for _, tc := range []struct {
		e    events.Event
		want string
	}{
		{events.Event{Type: events.RunFinished, Snapshot: snap, Reason: "plan_complete", ExitCode: new(0)},
			"Ralph has completed the project (plan_complete; 4 loops, tasks 2/3)"},
		{events.Event{Type: events.RunFinished, Snapshot: snap, Reason: "stagnation_detected", ExitCode: new(2), Message: StopLine(stop)},
			"Ralph stopped: circuit breaker open: no progress (exit 2; 4 loops, tasks 2/3)"},
		{events.Event{Type: events.RunFinished, Snapshot: snap, Reason: "error", ExitCode: new(1)},
			"Ralph stopped: error (exit 1; 4 loops, tasks 2/3)"},
		{events.Event{Type: events.BreakerChanged, From: "HALF_OPEN", To: "OPEN", Reason: "no progress in 3 loops"},
			"Circuit breaker has opened - execution halted (no progress in 3 loops)"},
		{events.Event{Type: events.BreakerChanged, From: "OPEN", To: "HALF_OPEN", Reason: "cooldown elapsed"},
			"Circuit breaker: OPEN → HALF_OPEN (cooldown elapsed)"},
		{events.Event{Type: events.UsageLimited, Until: &until, Reason: "5-hour limit reached"},
			"Usage limit reached; waiting until 03:04:05: 5-hour limit reached"},
		{events.Event{Type: events.RateLimited, Snapshot: snap, Until: &until}, "Call limit reached (100 calls per hour); waiting until 03:04:05"},
		{events.Event{Type: events.RunStarted, Driver: "codex"}, "Ralph loop starting (codex)"},
		{events.Event{Type: events.Paused}, "Paused (ralph_loop --resume to go on)"},
		{events.Event{Type: events.Resumed}, "Resumed"},
		{events.Event{Type: events.IterationCompleted, Snapshot: snap}, "Loop #4 done; tasks 2/3"},
		{events.Event{Type: events.IterationFailed, Snapshot: snap, Reason: "error (exit 2)"}, "Loop #4 failed: error (exit 2)"},
		// A failure says what the console said of it: the exit code and the
		// end of the agent's stderr, made safe (it is the agent's text).
		{events.Event{Type: events.IterationFailed, Snapshot: snap, Reason: "error", DriverExitCode: new(1),
			StderrTail: "fatal: quota \x1b[31mexceeded\x1b[0m"}, `Loop #4 failed: error (code 1); stderr: fatal: quota \u001b[31mexceeded\u001b[0m`},
		{events.Event{Type: events.UsageUpdated, Snapshot: events.Snapshot{UsageLimits: []events.UsageWindow{
			{Driver: "codex", Window: "primary", Status: "allowed", UsedPercent: &pct, ResetsAt: &until},
			{Driver: "claude-code", Window: "seven_day", Status: "rejected"}}}},
			"Usage: codex primary 92% used (allowed), resets 2026-11-25 03:04 " + until.Format("MST") + "; claude-code seven_day (rejected)"},
		// The timeline's words for what the console counts down or marks.
		{events.Event{Type: events.IterationStarted, Snapshot: snap}, "Starting Loop #4"},
		{events.Event{Type: events.DelayStarted, Snapshot: snap, Wait: "loop_delay", DelaySecs: 10}, "Next loop in 00:00:10"},
		{events.Event{Type: events.DelayStarted, Snapshot: snap, Wait: "idle_backoff", DelaySecs: 90}, "Idle; next iteration in 00:01:30"},
		{events.Event{Type: events.DelayEnded, Snapshot: snap, Wait: "loop_delay", Skipped: true}, "Wait skipped (Ctrl+C)"},
		{events.Event{Type: events.DelayEnded, Snapshot: snap, Wait: "loop_delay"}, "delay ended (loop #4)"},
		{events.Event{Type: events.DriverSwitched, From: "claude-code", To: "codex", Why: "usage_limit", Until: &until},
			"Agent switched: claude-code → codex (usage limit) until 03:04:05"},
		{events.Event{Type: "some_new_type", Snapshot: snap}, "some new type (loop #4)"},
	} {
		if got := Headline(tc.e); got != tc.want {
			t.Errorf("Headline(%s) = %q, want %q", tc.e.Type, got, tc.want)
		}
	}
}

// A value more than one surface shows is worded once: the console's
// breaker line, the headline (notifications, the dashboard's timeline) and
// --report say a transition in the same words; a usage window reads the
// same in a headline and in --status.
func TestOneWordingPerValue(t *testing.T) {
	ps := breakerMoved(events.BreakerChange{From: "CLOSED", To: "HALF_OPEN", Reason: "no progress in 2 loops"})
	move := BreakerMove("CLOSED", "HALF_OPEN", "no progress in 2 loops")
	if len(ps) != 1 || ps[0].text != "Circuit breaker: "+move {
		t.Fatalf("console breaker line %+v, want it to say %q", ps, move)
	}
	if h := Headline(events.Event{Type: events.BreakerChanged, From: "CLOSED", To: "HALF_OPEN", Reason: "no progress in 2 loops"}); h != ps[0].text {
		t.Errorf("headline %q, console %q: not the same words", h, ps[0].text)
	}
	pct := 92.5
	w := events.UsageWindow{Driver: "claude-code", Window: "five_hour", Status: "allowed_warning", UsedPercent: &pct}
	if h, want := Headline(events.Event{Type: events.UsageUpdated, Snapshot: events.Snapshot{UsageLimits: []events.UsageWindow{w}}}),
		"Usage: "+usageWindowLine(w); h != want {
		t.Errorf("usage headline %q, want %q", h, want)
	}
	if got, want := usageWindowLine(w), "claude-code five_hour 92.5% used (allowed_warning)"; got != want {
		t.Errorf("usageWindowLine = %q, want %q", got, want)
	}
}
