package observe

import (
	"encoding/json"
	"testing"
	"time"

	. "github.com/ralphloop/ralph_loop/internal/events"
)

// Each report becomes the line of logs/events.jsonl the engine wrote when
// it built the line itself (docs/EVENTS.md): the same fields, the same
// bytes; a failed call's reason and a stop's message are their values'
// words (Failure.Words, Stop.Sentence).
func TestLinesAreTheEventLogContract(t *testing.T) {
	until := busT0.Add(90 * time.Second)
	snap := Snapshot{Loop: 3, CallsThisHour: 2, MaxCalls: 100, NextReset: "04:00:00", BreakerState: "CLOSED"}
	m := func(action, status string) Moment {
		return Moment{Snapshot: snap, Action: action, Status: status}
	}
	stop := Stop{Kind: StopSignal, Signal: "SIGINT"}
	it := &Iteration{Outcome: "success", Driver: "claude-code", WallMS: 5}
	f := Failure{Kind: CallTimedOut, Code: 124}
	cases := []struct {
		report func(*Fan)
		want   Event
	}{
		{func(b *Fan) { b.RunStarted(m("", ""), Start{Driver: "claude-code", Version: "1.2.3"}) },
			Event{Type: RunStarted, Driver: "claude-code", Version: "1.2.3"}},
		{func(b *Fan) { b.CallStarted(m("executing", "running")) },
			Event{Type: IterationStarted, Action: "executing", Status: "running"}},
		{func(b *Fan) { b.CallEnded(m("completed", "success"), Call{Outcome: IterationCompleted, Iteration: it}) },
			Event{Type: IterationCompleted, Iteration: it, Action: "completed", Status: "success"}},
		{func(b *Fan) {
			b.CallEnded(m("failed", "error"), Call{Outcome: IterationFailed, Iteration: it, Failure: &f, DriverExitCode: new(124)})
		}, Event{Type: IterationFailed, Iteration: it, Action: "failed", Status: "error", Reason: "timed out", DriverExitCode: new(124)}},
		{func(b *Fan) {
			b.WaitStarted(m("", ""), Wait{Kind: "loop_delay", Delay: 90 * time.Second, Until: until})
		},
			Event{Type: DelayStarted, Wait: "loop_delay", DelaySecs: 90, Until: &until}},
		{func(b *Fan) {
			b.WaitEnded(m("", ""), Wait{Kind: "idle_backoff", Delay: 1500 * time.Millisecond, Skipped: true, Reason: "stopped"})
		}, Event{Type: DelayEnded, Wait: "idle_backoff", DelaySecs: 1.5, Skipped: true, Reason: "stopped"}},
		{func(b *Fan) { b.WaitStarted(m("paused", "paused"), Wait{Kind: WaitPause}) },
			Event{Type: Paused, Action: "paused", Status: "paused"}},
		{func(b *Fan) { b.WaitEnded(m("resumed", "running"), Wait{Kind: WaitPause}) },
			Event{Type: Resumed, Action: "resumed", Status: "running"}},
		{func(b *Fan) { b.LimitHit(m("", ""), Wait{Kind: "rate_limit", Delay: 90 * time.Second, Until: until}) },
			Event{Type: RateLimited, Wait: "rate_limit", DelaySecs: 90, Until: &until}},
		{func(b *Fan) {
			b.LimitHit(m("api_limit", "paused"), Wait{Kind: "usage_limit", Delay: 90 * time.Second, Until: until, Reason: "api_5hour_limit"})
		}, Event{Type: UsageLimited, Action: "api_limit", Status: "paused", Wait: "usage_limit", DelaySecs: 90, Until: &until, Reason: "api_5hour_limit"}},
		{func(b *Fan) {
			b.BreakerMoved(m("", ""), BreakerChange{From: "CLOSED", To: "OPEN", Reason: "no progress", Report: []string{"box"}})
		}, Event{Type: BreakerChanged, From: "CLOSED", To: "OPEN", Reason: "no progress"}},
		{func(b *Fan) { b.UsageChanged(m("", "")) }, Event{Type: UsageUpdated}},
		{func(b *Fan) {
			b.DriverSwitched(m("driver_switched", "running"), DriverSwitch{From: "Claude Code", To: "OpenAI Codex", FromDriver: "claude-code", ToDriver: "codex", Why: SwitchUsageLimit, Until: until})
		}, Event{Type: DriverSwitched, Action: "driver_switched", Status: "running", From: "claude-code", To: "codex", Why: SwitchUsageLimit, Until: &until}},
		{func(b *Fan) {
			b.DriverSwitched(m("driver_switched", "running"), DriverSwitch{FromDriver: "codex", ToDriver: "claude-code", Why: SwitchReset})
		}, Event{Type: DriverSwitched, Action: "driver_switched", Status: "running", From: "codex", To: "claude-code", Why: SwitchReset}},
		{func(b *Fan) { b.Reviewed(m("", ""), Review{Level: Warn, Text: "review: 2 findings"}) },
			Event{Type: ReviewCompleted, Message: "review: 2 findings"}},
		{func(b *Fan) {
			b.Stopped(m("interrupted", "stopped"), End{Reason: "SIGINT", ExitCode: 130, Stop: &stop})
		}, Event{Type: RunFinished, Action: "interrupted", Status: "stopped", Reason: "SIGINT", ExitCode: new(130), Message: "stopped by SIGINT"}},
		{func(b *Fan) {
			b.Stopped(m("unexpected_exit", "stopped"), End{Reason: "error", ExitCode: 1, DriverExitCode: new(1)})
		}, Event{Type: RunFinished, Action: "unexpected_exit", Status: "stopped", Reason: "error", ExitCode: new(1), DriverExitCode: new(1)}},
	}
	for _, c := range cases {
		var got []Event
		b := New(func() time.Time { return busT0 }, "run-7")
		b.Add(Lines(func(e Event) { got = append(got, e) }))
		c.report(b)
		want := c.want
		want.V, want.TS, want.RunID, want.Snapshot = SchemaVersion, busT0, "run-7", snap
		wb, _ := json.Marshal(want)
		if len(got) != 1 {
			t.Errorf("%s: %d lines, want 1", want.Type, len(got))
			continue
		}
		gb, _ := json.Marshal(got[0])
		if string(gb) != string(wb) {
			t.Errorf("%s:\n got %s\nwant %s", want.Type, gb, wb)
		}
	}
}

// The agent's progress is no line of the event log.
func TestLinesHaveNoProgress(t *testing.T) {
	n := 0
	l := Lines(func(Event) { n++ })
	l.CallProgress(Moment{}, AgentWorking{Elapsed: 10 * time.Second})
	l.Output(busT0, []byte("x"))
	l.Said(busT0, LiveEnded)
	if n != 0 {
		t.Fatalf("%d lines, want none", n)
	}
}
