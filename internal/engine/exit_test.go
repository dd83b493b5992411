package engine

import (
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ralphloop/ralph_loop/analysis"
	"github.com/ralphloop/ralph_loop/internal/events"
	"github.com/ralphloop/ralph_loop/internal/gates"
)

func TestDecideExit(t *testing.T) {
	twoDone := analysis.ExitSignals{DoneSignals: []int{3, 4}}
	ticked := analysis.PlanProgress{Completed: 4, Total: 4}
	open := analysis.PlanProgress{Completed: 3, Total: 4}
	done := regexp.MustCompile(`ALL DONE`)
	for _, tc := range []struct {
		name string
		f    exitFacts
		want exitCall
	}{
		{name: "no exit signals kept: nothing is read, the plan neither",
			f:    exitFacts{plan: ticked},
			want: exitCall{}},
		{name: "a ticked plan",
			f:    exitFacts{haveSignals: true, plan: ticked},
			want: exitCall{reason: analysis.ExitPlanComplete, decided: true, why: analysis.ExitDecision{Reason: analysis.ExitPlanComplete, Message: "Exit condition: All @fix_plan.md items completed (4/4)"}}},
		{name: "an open plan and no signals: go on, the decision read",
			f:    exitFacts{haveSignals: true, plan: open},
			want: exitCall{decided: true}},
		{name: "two completion signals",
			f:    exitFacts{haveSignals: true, signals: twoDone, plan: open},
			want: exitCall{reason: analysis.ExitCompletionSignal, decided: true, why: analysis.ExitDecision{Reason: analysis.ExitCompletionSignal, Message: "Exit condition: Multiple completion signals (2 >= 2)"}}},
		{name: "the agent's question waits: nothing is done, not even a ticked plan",
			f:    exitFacts{asking: true, haveSignals: true, plan: ticked, reply: true, text: "ALL DONE", donePattern: done},
			want: exitCall{}},
		{name: "--goal: its check alone decides",
			f:    exitFacts{goal: true, goalDone: true, haveSignals: true, signals: twoDone},
			want: exitCall{reason: goalMet}},
		{name: "--goal not met: no completion, whatever the signals",
			f:    exitFacts{goal: true, haveSignals: true, plan: ticked},
			want: exitCall{}},
		{name: "before a call the done pattern is not read",
			f:    exitFacts{text: "ALL DONE", donePattern: done},
			want: exitCall{}},
		{name: "after a call the done pattern completes",
			f:    exitFacts{reply: true, text: "work is ALL DONE now", donePattern: done},
			want: exitCall{reason: "done_pattern", pattern: true}},
		{name: "the signals' completion goes before the done pattern",
			f:    exitFacts{haveSignals: true, plan: ticked, reply: true, text: "ALL DONE", donePattern: done},
			want: exitCall{reason: analysis.ExitPlanComplete, decided: true, why: analysis.ExitDecision{Reason: analysis.ExitPlanComplete, Message: "Exit condition: All @fix_plan.md items completed (4/4)"}}},
		{name: "strict: a claim of done where nothing else completes is checked as one",
			f:    exitFacts{reply: true, strict: true, claimed: true},
			want: exitCall{claim: true}},
		{name: "signals mode: a claim alone is no completion",
			f:    exitFacts{reply: true, claimed: true},
			want: exitCall{}},
		{name: "strict: the done pattern goes before the claim",
			f:    exitFacts{reply: true, strict: true, claimed: true, text: "ALL DONE", donePattern: done},
			want: exitCall{reason: "done_pattern", pattern: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, decideExit(tc.f), cmp.AllowUnexported(exitCall{})); diff != "" {
				t.Errorf("decideExit (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRefuse(t *testing.T) {
	tests := gates.Failure{Gate: gates.GateTest, Command: "go test ./..."}
	lint := gates.Failure{Gate: "quality", Command: "golangci-lint run"}
	openPlan := events.PlanCount{Done: 3, Total: 4, Have: true}
	ticked := events.PlanCount{Done: 4, Total: 4, Have: true}
	for _, tc := range []struct {
		name     string
		strict   bool
		mode     string
		reason   string
		plan     events.PlanCount
		failures []gates.Failure
		want     refusal
		refused  bool
	}{
		{name: "signals mode, gates pass: it stands", mode: gates.ModeBlock, reason: "completion_signals", plan: openPlan},
		{name: "signals mode, no gates: an open plan does not refuse", reason: "completion_signals", plan: openPlan},
		{name: "block mode: a failing gate holds the agent's own signals",
			mode: gates.ModeBlock, reason: "completion_signals", plan: ticked, failures: []gates.Failure{lint},
			want: refusal{failures: []gates.Failure{lint}}, refused: true},
		{name: "block mode: a ticked plan ends the run past a failing quality gate",
			mode: gates.ModeBlock, reason: "plan_complete", plan: ticked, failures: []gates.Failure{lint}},
		{name: "block mode: failing tests hold a ticked plan too",
			mode: gates.ModeBlock, reason: "plan_complete", plan: ticked, failures: []gates.Failure{lint, tests},
			want: refusal{failures: []gates.Failure{lint, tests}}, refused: true},
		{name: "warn mode never refuses",
			mode: gates.ModeWarn, reason: "completion_signals", plan: ticked, failures: []gates.Failure{tests}},
		{name: "strict: an open task refuses, gates or not",
			strict: true, reason: "done_pattern", plan: openPlan,
			want: refusal{open: 1, total: 4}, refused: true},
		{name: "strict: any failing gate refuses, in any mode",
			strict: true, mode: gates.ModeWarn, reason: "plan_complete", plan: ticked, failures: []gates.Failure{lint},
			want: refusal{failures: []gates.Failure{lint}}, refused: true},
		{name: "strict: no plan has no open task",
			strict: true, reason: "exit_signal"},
		{name: "strict: a ticked plan and passing gates stand",
			strict: true, mode: gates.ModeBlock, reason: "plan_complete", plan: ticked},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, refused := refuse(tc.strict, tc.mode, tc.reason, tc.plan, tc.failures)
			if refused != tc.refused {
				t.Errorf("refused = %v, want %v", refused, tc.refused)
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(refusal{})); diff != "" {
				t.Errorf("refusal (-want +got):\n%s", diff)
			}
		})
	}
}
