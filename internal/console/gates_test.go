package console

import (
	"errors"
	"strings"
	"testing"

	"github.com/ralphloop/ralph_loop/internal/events"
	"github.com/ralphloop/ralph_loop/internal/gates"
)

// The words of the quality gates' notices: a failed gate names its
// command and where its whole output is; a held completion says what
// looked done and which gate fails; a completed run's last line names its
// evidence.
func TestRenderGates(t *testing.T) {
	test := gates.Failure{Gate: gates.GateTest, Command: "go test ./...", ExitCode: 1, Tail: "FAIL"}
	lint := gates.Failure{Gate: gates.GateQualityGate, Command: "npm run\x1b[2Jlint", ExitCode: 124, TimedOut: true}
	log := ".ralph/logs/quality_gates_x.log"
	plan := events.PlanCount{Done: 2, Total: 2, Have: true}
	tests := []struct {
		n    any
		want string
	}{
		{events.GateFailed{Failure: test, Log: log}, "WARN Quality gate failed: TEST_COMMAND `go test ./...` exited 1; full output: " + log},
		{events.GateFailed{Failure: lint, Log: log}, "WARN Quality gate failed: QUALITY_GATES `npm run [2Jlint` timed out (QUALITY_GATE_TIMEOUT); full output: " + log},
		{events.GateFailed{Failure: gates.Failure{Gate: gates.GateReported}, Log: log}, "WARN Quality gate failed: the agent reported TESTS_STATUS: FAILING"},
		{events.CompletionHeld{Reason: "plan_complete", Plan: plan, Failures: []gates.Failure{test, lint}, Log: log, Mode: "block"},
			"WARN Not done: plan 2/2 ticked, but TEST_COMMAND `go test ./...` exited 1 (and 1 more); going on (QUALITY_GATE_MODE=block); full output: " + log},
		{events.CompletionHeld{Reason: "done_pattern", Plan: events.PlanCount{Done: 1, Total: 2, Have: true}, Failures: []gates.Failure{test}, Mode: "circuit-breaker"},
			"WARN Not done: the agent reported completion (done_pattern), but TEST_COMMAND `go test ./...` exited 1; going on (QUALITY_GATE_MODE=circuit-breaker)"},
		// COMPLETION_MODE=strict: open tasks refuse a claim; a failing gate
		// refuses it whatever QUALITY_GATE_MODE says.
		{events.CompletionHeld{Reason: "exit_signal", Plan: events.PlanCount{Done: 0, Total: 5, Have: true}, Mode: "warn", Strict: true, Open: 5},
			"WARN Not done: the agent reported completion (exit_signal), but 5 of 5 tasks in @fix_plan.md are open; going on (COMPLETION_MODE=strict)"},
		{events.CompletionHeld{Reason: "plan_complete", Plan: plan, Failures: []gates.Failure{test}, Mode: "warn", Strict: true},
			"WARN Not done: plan 2/2 ticked, but TEST_COMMAND `go test ./...` exited 1; going on (COMPLETION_MODE=strict)"},
		{completion{"plan_complete", 0, 0, 0, events.Evidence{Plan: plan, Gates: "pass", Mode: "block", Commit: "abc1234", Subject: "Add login"}},
			"SUCCESS ✅ Completed (plan_complete): plan 2/2; quality gates passing; last commit abc1234 Add login"},
		{completion{"completion_signals", 0, 0, 0, events.Evidence{}},
			"SUCCESS ✅ Completed (completion_signals): no tasks in @fix_plan.md; no quality gates configured"},
		{completion{"plan_complete", 0, 0, 0, events.Evidence{Plan: plan, Gates: "fail", Mode: "warn", Failures: []gates.Failure{test}, Log: log, Commit: "abc1234"}},
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

// A completion that warn mode let through with failing gates says so in
// its notification; one with passing gates does not.
func TestHeadlineFailingGates(t *testing.T) {
	snap := events.Snapshot{Loop: 2, TasksCompleted: 2, TasksTotal: 2}
	e := events.Event{Type: events.RunFinished, Snapshot: snap, Reason: "plan_complete", ExitCode: new(0)}
	e.QualityGates = &events.Gates{OverallStatus: "fail", Mode: "warn", Failing: []string{"go test ./...", "npm run lint"}}
	want := "Ralph has completed the project (plan_complete; 2 loops, tasks 2/2) but quality gates FAIL (QUALITY_GATE_MODE=warn): `go test ./...`, `npm run lint`"
	if got := Headline(e); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	e.QualityGates = &events.Gates{OverallStatus: "pass", Mode: "warn"}
	if got, want := Headline(e), "Ralph has completed the project (plan_complete; 2 loops, tasks 2/2)"; got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

func TestRenderBreakerOpenAtStart(t *testing.T) {
	stop := events.Stop{Kind: events.StopBreaker, Err: errors.New("circuit breaker open: no progress (run ralph_loop --reset-circuit to continue)")}
	_, got := render(Options{}, events.BreakerOpenAtStart{Stop: stop})
	if want := logged("ERROR 🛑 Not starting: circuit breaker open: no progress (run ralph_loop --reset-circuit to continue)"); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}
