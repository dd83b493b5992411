package notify

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ralphloop/ralph_loop/internal/events"
)

func TestMatch(t *testing.T) {
	defaults := []string{"run_finished", "breaker_opened", "usage_limited", "guard_gave_up"}
	gaveUp := &events.Stop{Kind: events.StopGaveUp}
	maxLoops := &events.Stop{Kind: events.StopMaxLoops}
	for _, tc := range []struct {
		name string
		on   []string
		e    events.Event
		want string
	}{
		{"run finished", defaults, events.Event{Type: events.RunFinished, Reason: "plan_complete"}, "run_finished"},
		{"stopped at max loops", defaults, events.Event{Type: events.RunFinished, Stop: maxLoops}, "run_finished"},
		{"guard gave up", defaults, events.Event{Type: events.RunFinished, Stop: gaveUp}, "guard_gave_up"},
		{"guard gave up, from the reason", defaults, events.Event{Type: events.RunFinished, Reason: "disk_full"}, "guard_gave_up"},
		{"provider outage", defaults, events.Event{Type: events.RunFinished, Stop: &events.Stop{Kind: events.StopOutage}}, "guard_gave_up"},
		{"permanent failure", defaults, events.Event{Type: events.RunFinished, Stop: &events.Stop{Kind: events.StopPermanent}}, "guard_gave_up"},
		{"provider outage, from the reason", defaults, events.Event{Type: events.RunFinished, Reason: "provider_outage"}, "guard_gave_up"},
		{"guard only", []string{"guard_gave_up"}, events.Event{Type: events.RunFinished, Reason: "plan_complete"}, ""},
		{"breaker opened", defaults, events.Event{Type: events.BreakerChanged, From: "HALF_OPEN", To: "OPEN"}, "breaker_opened"},
		{"breaker closed", defaults, events.Event{Type: events.BreakerChanged, From: "OPEN", To: "CLOSED"}, ""},
		{"every breaker change", []string{"breaker_changed", "breaker_opened"}, events.Event{Type: events.BreakerChanged, To: "HALF_OPEN"}, "breaker_changed"},
		{"usage limit", defaults, events.Event{Type: events.UsageLimited}, "usage_limited"},
		{"not selected", defaults, events.Event{Type: events.IterationCompleted}, ""},
		{"a later type by its name", []string{"usage_updated"}, events.Event{Type: "usage_updated"}, "usage_updated"},
		{"all", []string{"all"}, events.Event{Type: events.DelayStarted}, "all"},
		{"all and a type", []string{"all", "delay_started"}, events.Event{Type: events.DelayStarted}, "delay_started"},
		{"never progress", []string{"all", "iteration_progress"}, events.Event{Type: events.IterationProgress}, ""},
		{"nothing", nil, events.Event{Type: events.RunFinished}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := pick(tc.on).match(tc.e); got != tc.want {
				t.Errorf("Match = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestUnknown(t *testing.T) {
	got := pick([]string{"run_finished", " ", "usage_updated", "driver_switched", "breaker_opened", "all", "bogus"}).unknown()
	if diff := cmp.Diff([]string{"bogus"}, got); diff != "" {
		t.Errorf("Unknown (-want +got):\n%s", diff)
	}
	if !pick([]string{" "}).empty() {
		t.Error("a blank name selects something")
	}
}
