package console

import (
	"errors"
	"strings"
	"testing"

	"github.com/ralphloop/ralph_loop/internal/events"
)

// The words of the quality gates' notices: a failed gate names its
// command and where its whole output is; a held completion says what
// looked done and which gate fails; a completed run's last line names its
// evidence.
func TestRenderGates(t *testing.T) {
	test := events.GateFailure{Gate: "TEST_COMMAND", Command: "go test ./...", ExitCode: 1}
	lint := events.GateFailure{Gate: "QUALITY_GATES", Command: "npm run\x1b[2Jlint", ExitCode: 124, TimedOut: true}
	log := ".ralph/logs/quality_gates_x.log"
	plan := events.PlanCount{Done: 2, Total: 2, Have: true}
	tests := []struct {
		n    any
		want string
	}{
		{events.GateFailed{Failure: test, Log: log}, "WARN Quality gate failed: TEST_COMMAND `go test ./...` exited 1; full output: " + log},
		{events.GateFailed{Failure: lint, Log: log}, "WARN Quality gate failed: QUALITY_GATES `npm run [2Jlint` timed out (QUALITY_GATE_TIMEOUT); full output: " + log},
		{events.GateFailed{Failure: events.GateFailure{Gate: "TESTS_STATUS", Reported: true}, Log: log}, "WARN Quality gate failed: the agent reported TESTS_STATUS: FAILING"},
		{events.CompletionHeld{Reason: "plan_complete", Plan: plan, Failures: []events.GateFailure{test, lint}, Log: log, Mode: "block"},
			"WARN Not done: plan 2/2 ticked, but TEST_COMMAND `go test ./...` exited 1 (and 1 more); going on (QUALITY_GATE_MODE=block); full output: " + log},
		{events.CompletionHeld{Reason: "done_pattern", Plan: events.PlanCount{Done: 1, Total: 2, Have: true}, Failures: []events.GateFailure{test}, Mode: "circuit-breaker"},
			"WARN Not done: the agent reported completion (done_pattern), but TEST_COMMAND `go test ./...` exited 1; going on (QUALITY_GATE_MODE=circuit-breaker)"},
		{completion{"plan_complete", 0, 0, events.Evidence{Plan: plan, Gates: "pass", Mode: "block", Commit: "abc1234", Subject: "Add login"}},
			"SUCCESS ✅ Completed (plan_complete): plan 2/2; quality gates passing; last commit abc1234 Add login"},
		{completion{"completion_signals", 0, 0, events.Evidence{}},
			"SUCCESS ✅ Completed (completion_signals): no tasks in @fix_plan.md; no quality gates configured"},
		{completion{"plan_complete", 0, 0, events.Evidence{Plan: plan, Gates: "fail", Mode: "warn", Failures: []events.GateFailure{test}, Log: log, Commit: "abc1234"}},
			"WARN ⚠️ Completed (plan_complete) with failing quality gates, as QUALITY_GATE_MODE=warn allows: plan 2/2; quality gates FAILING: TEST_COMMAND `go test ./...` exited 1; full output: " + log + "; last commit abc1234"},
	}
	for _, tc := range tests {
		_, got := render(Options{}, tc.n)
		if _, ok := tc.n.(completion); ok { // the last line, after the final stats
			got = got[strings.LastIndex(strings.TrimSuffix(got, "\n"), "\n")+1:]
		}
		if want := logged(tc.want); got != want {
			t.Errorf("%#v:\n got %q\nwant %q", tc.n, got, want)
		}
	}
}

func TestRenderBreakerOpenAtStart(t *testing.T) {
	stop := events.Stop{Kind: events.StopBreaker, Err: errors.New("circuit breaker open: no progress (run ralph_loop --reset-circuit to continue)")}
	_, got := render(Options{}, events.BreakerOpenAtStart{Stop: stop})
	if want := logged("ERROR 🛑 Not starting: circuit breaker open: no progress (run ralph_loop --reset-circuit to continue)"); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}
