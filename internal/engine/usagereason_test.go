package engine

import (
	"testing"
	"time"

	"github.com/ralphloop/ralph_loop/internal/events"
)

// A usage stop's exit_reason names the window and the reset time, or says
// which of them the CLI did not report.
func TestUsageReason(t *testing.T) {
	t.Parallel()
	reset := time.Date(2026, 3, 1, 10, 0, 0, 0, time.FixedZone("CET", 3600))
	for _, tc := range []struct {
		w    events.UsageWindow
		want string
	}{
		{events.UsageWindow{Window: "seven_day", ResetsAt: &reset}, "usage_limit_max_wait (seven_day resets 2026-03-01T09:00:00Z)"},
		{events.UsageWindow{Window: "primary"}, "usage_limit_max_wait (primary, reset time unknown)"},
		{events.UsageWindow{Window: "unknown"}, "usage_limit_max_wait (window unknown, reset time unknown)"},
	} {
		if got := usageReason("usage_limit_max_wait", tc.w); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.w, got, tc.want)
		}
	}
}
