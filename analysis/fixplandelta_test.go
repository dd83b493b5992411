package analysis_test

import (
	"testing"

	"github.com/ralphloop/ralph_loop/analysis"
)

// The plan is one task per loop: a loop is consistent only when the
// agent's claim equals the change in done boxes and both are 0 or 1.
// Anything else suppresses the loop's completion signals.
func TestApplyFixPlanDeltaMismatch(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name           string
		claimed, delta int
		mismatch       bool
	}{
		{"claimed one, ticked one", 1, 1, false},
		{"nothing claimed, nothing ticked", 0, 0, false},
		{"claimed without ticking", 1, 0, true},
		{"ticked without claiming", 0, 1, true},
		{"two at once, honestly claimed", 2, 2, true},
		{"inflated claim", 3, 1, true},
		{"box unticked", 0, -1, true},
		{"negative claim", -1, -1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := analysis.Result{TasksCompletedThisLoop: tc.claimed, ExitSignal: true, HasCompletionSignal: true}
			if got := r.ApplyFixPlanDelta(tc.delta); got != tc.mismatch || r.HasProgressTrackingMismatch != tc.mismatch {
				t.Errorf("ApplyFixPlanDelta(%d) with claim %d = %v (field %v), want %v", tc.delta, tc.claimed, got, r.HasProgressTrackingMismatch, tc.mismatch)
			}
			if r.FixPlanCompletedDelta != tc.delta || r.ExitSignal == tc.mismatch || r.HasCompletionSignal == tc.mismatch {
				t.Errorf("after ApplyFixPlanDelta(%d): %+v", tc.delta, r)
			}
		})
	}
}
