package engine_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/ralphloop/ralph_loop/internal/engine"
)

// Done means verified: an agent that ticks the whole plan while a
// blocking quality gate fails never ends the run as completed. The gates
// run at the completion even when QUALITY_GATE_ON_COMPLETION_ONLY skipped
// them after the call; in circuit-breaker mode the breaker bounds the run;
// a gate that passes lets the plan complete; in warn mode the run
// completes.
func TestCompletionVerified(t *testing.T) {
	t.Parallel()
	tick := func(int) ctlReply { return ctlReply{Text: "Did a task.", Touch: "src/app.txt", Check: true} }
	type ending struct {
		code           int
		reason, status string
	}
	maxLoops := ending{engine.ExitMaxLoops, "max_loops", "stopped"}
	done := ending{engine.ExitComplete, "plan_complete", "completed"}
	tests := []struct {
		name string
		env  map[string]string
		end  ending
		held bool
	}{
		{"block", map[string]string{"TEST_COMMAND": "test -f fixed", "QUALITY_GATE_MODE": "block"}, maxLoops, true},
		{"block, gates on completion only", map[string]string{"TEST_COMMAND": "test -f fixed", "QUALITY_GATE_MODE": "block", "QUALITY_GATE_ON_COMPLETION_ONLY": "true"}, maxLoops, true},
		{"circuit-breaker", map[string]string{"TEST_COMMAND": "test -f fixed", "QUALITY_GATE_MODE": "circuit-breaker", "MAX_LOOPS": "8"},
			ending{engine.ExitHalted, "stagnation_detected", "halted"}, true},
		{"warn", map[string]string{"TEST_COMMAND": "test -f fixed", "QUALITY_GATE_MODE": "warn"}, done, false},
		{"block, passing", map[string]string{"TEST_COMMAND": "test -f src/app.txt", "QUALITY_GATE_MODE": "block"}, done, false},
		// A QUALITY_GATES command holds what the agent claims, not a
		// ticked plan, as the bash loop's block mode does.
		{"block, a failing QUALITY_GATES command and a ticked plan", map[string]string{"QUALITY_GATES": "test -f fixed", "QUALITY_GATE_MODE": "block"}, done, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				h := newCtlHarness(t, false, tick)
				env := map[string]string{"LOOP_DELAY": "1s", "MAX_LOOPS": "4"}
				for k, v := range tc.env {
					env[k] = v
				}
				r := h.run(h.settings(env))
				h.checkEnd(r, tc.end.code, tc.end.reason, tc.end.status)
				if got := h.rec.hasLine("Not done: plan 2/2 ticked, but TEST_COMMAND `test -f fixed` exited 1; going on"); got != tc.held {
					t.Errorf("completion held = %v, want %v:\n%s", got, tc.held, h.rec.logText())
				}
				if tc.held {
					// One a call from the one that ticked the last box on
					// (the breaker stops the run before its last call's).
					if n, want := strings.Count(h.rec.logText(), "Not done:"), h.callCount()-1; n != want && !(tc.end.code == engine.ExitHalted && n == want-1) {
						t.Errorf("%d 'Not done' lines after %d calls, want one per call after the plan was done", n, h.callCount())
					}
					if last := h.argvs[len(h.argvs)-1]; !strings.Contains(strings.Join(last, " "), "NOT DONE: every task in @fix_plan.md is ticked (2/2), but the quality gate TEST_COMMAND `test -f fixed` fails (exit 1)") {
						t.Errorf("the last call was not told why: %q", last)
					}
				}
				if tc.name == "warn" && !h.rec.hasLine("Completed (plan_complete) with failing quality gates") {
					t.Errorf("no line says the gates fail:\n%s", h.rec.logText())
				}
			})
		})
	}
}

// Once the gate passes, the held completion goes through.
func TestCompletionVerifiedOnceFixed(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		var h *ctlHarness
		h = newCtlHarness(t, false, func(n int) ctlReply {
			if n == 4 {
				if err := os.WriteFile(filepath.Join(h.dir, "fixed"), nil, 0o644); err != nil {
					t.Error(err)
				}
				return ctlReply{Text: "Fixed it.", Touch: "src/app.txt"}
			}
			return ctlReply{Text: "Did a task.", Touch: "src/app.txt", Check: true}
		})
		r := h.run(h.settings(map[string]string{"LOOP_DELAY": "1s", "MAX_LOOPS": "8", "TEST_COMMAND": "test -f fixed", "QUALITY_GATE_MODE": "block"}))
		h.checkEnd(r, engine.ExitComplete, "plan_complete", "completed")
		if h.callCount() != 4 {
			t.Errorf("%d calls, want 4", h.callCount())
		}
		if !h.rec.hasLine("✅ Completed (plan_complete): plan 2/2; quality gates passing; no commit this run") {
			t.Errorf("no evidence line:\n%s", h.rec.logText())
		}
	})
}
