package engine

import (
	"testing"
	"time"
)

// The max-wait rule: a reported reset is waited for (plus 5 s) when it is
// at most maxWait away (0: any distance); an unreported one means the
// bash loop's hour, under the same cap.
func TestUsageWait(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 2, 18, 1, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		reset  time.Time
		max    time.Duration
		wait   time.Duration
		within bool
	}{
		{now.Add(2 * time.Hour), 6 * time.Hour, 2*time.Hour + 5*time.Second, true},
		{now.Add(6 * time.Hour), 6 * time.Hour, 6*time.Hour + 5*time.Second, true},
		{now.Add(6*time.Hour + time.Second), 6 * time.Hour, 6*time.Hour + 6*time.Second, false},
		{now.Add(72 * time.Hour), 6 * time.Hour, 72*time.Hour + 5*time.Second, false},
		{now.Add(72 * time.Hour), 0, 72*time.Hour + 5*time.Second, true},
		{time.Time{}, 6 * time.Hour, time.Hour, true},
		{time.Time{}, 30 * time.Minute, time.Hour, false},
		{now.Add(-time.Minute), 6 * time.Hour, time.Hour, true}, // a reset already past: the hour
	} {
		wait, within := usageWait(now, tc.reset, tc.max)
		if wait != tc.wait || within != tc.within {
			t.Errorf("usageWait(reset %v, max %s) = %s, %v; want %s, %v", tc.reset, tc.max, wait, within, tc.wait, tc.within)
		}
	}
}
