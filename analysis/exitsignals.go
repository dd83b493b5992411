package analysis

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// ExitSignals is .ralph/.exit_signals: the loop numbers of recent
// test-only loops, completion ("done") signals and EXIT_SIGNAL=true
// responses, each a rolling window of the last five.
type ExitSignals struct {
	TestOnlyLoops        []int `json:"test_only_loops"`
	DoneSignals          []int `json:"done_signals"`
	CompletionIndicators []int `json:"completion_indicators"`
}

const signalWindow = 5

// Exit thresholds of the bash loop.
const (
	maxTestOnlyLoops     = 3 // MAX_CONSECUTIVE_TEST_LOOPS
	maxDoneSignals       = 2 // MAX_CONSECUTIVE_DONE_SIGNALS
	safetyExitIndicators = 5
	completionIndicators = 2
)

// ParseExitSignals reads the file. A missing array reads as empty.
func ParseExitSignals(b []byte) (ExitSignals, error) {
	var s ExitSignals
	if err := json.Unmarshal(b, &s); err != nil {
		return ExitSignals{}, fmt.Errorf("parse exit signals: %w", err)
	}
	s.normalize()
	return s, nil
}

func (s *ExitSignals) normalize() {
	if s.TestOnlyLoops == nil {
		s.TestOnlyLoops = []int{}
	}
	if s.DoneSignals == nil {
		s.DoneSignals = []int{}
	}
	if s.CompletionIndicators == nil {
		s.CompletionIndicators = []int{}
	}
}

// Marshal returns the file content as the bash loop leaves it after an
// update: pretty JSON and a final newline.
func (s ExitSignals) Marshal() ([]byte, error) {
	s.normalize()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	if err := enc.Encode(s); err != nil {
		return nil, fmt.Errorf("encode exit signals: %w", err)
	}
	return buf.Bytes(), nil
}

// Update records one loop's analysis (update_exit_signals): a test-only
// loop is appended to test_only_loops, a loop with progress clears it; a
// loop without permission denials and without a progress-tracking mismatch
// adds to done_signals when it has a completion signal and to
// completion_indicators when its exit_signal is true. Each array keeps its
// last five entries.
func (s *ExitSignals) Update(ra ResponseAnalysis) {
	s.normalize()
	a := ra.Analysis
	loop := ra.LoopNumber
	if a.IsTestOnly {
		s.TestOnlyLoops = append(s.TestOnlyLoops, loop)
	} else if a.HasProgress {
		s.TestOnlyLoops = s.TestOnlyLoops[:0]
	}
	if !a.HasPermissionDenials && !a.HasProgressTrackingMismatch {
		if a.HasCompletionSignal {
			s.DoneSignals = append(s.DoneSignals, loop)
		}
		if a.ExitSignal {
			s.CompletionIndicators = append(s.CompletionIndicators, loop)
		}
	}
	s.TestOnlyLoops = lastN(s.TestOnlyLoops, signalWindow)
	s.DoneSignals = lastN(s.DoneSignals, signalWindow)
	s.CompletionIndicators = lastN(s.CompletionIndicators, signalWindow)
}

func lastN(v []int, n int) []int {
	if len(v) > n {
		return append([]int(nil), v[len(v)-n:]...)
	}
	return v
}

// PlanProgress is the @fix_plan.md checkbox count (completed of total).
type PlanProgress struct {
	Completed int
	Total     int
}

// ExitDecision is the outcome of should_exit_gracefully: Reason is the exit
// reason ("" to continue) and Message the WARN line the bash loop logs.
type ExitDecision struct {
	Reason  string
	Message string
}

// Exit reasons.
const (
	ExitTestSaturation   = "test_saturation"
	ExitCompletionSignal = "completion_signals"
	ExitSafetyBreaker    = "safety_circuit_breaker"
	ExitProjectComplete  = "project_complete"
	ExitPlanComplete     = "plan_complete"
)

// Decide applies the bash loop's exit rules, in order: three test-only
// loops; two completion signals; five EXIT_SIGNAL=true responses; two of
// them while the latest analysis still says EXIT_SIGNAL=true (the dual
// gate); every @fix_plan.md box checked. lastExitSignal is the exit_signal of
// the current .response_analysis (false when there is none). The bash loop
// skips every rule, the plan one included, when .exit_signals is missing;
// that check is the caller's.
func (s ExitSignals) Decide(lastExitSignal bool, plan PlanProgress) ExitDecision {
	t, d, c := len(s.TestOnlyLoops), len(s.DoneSignals), len(s.CompletionIndicators)
	switch {
	case t >= maxTestOnlyLoops:
		return ExitDecision{ExitTestSaturation, fmt.Sprintf("Exit condition: Too many test-focused loops (%d >= %d)", t, maxTestOnlyLoops)}
	case d >= maxDoneSignals:
		return ExitDecision{ExitCompletionSignal, fmt.Sprintf("Exit condition: Multiple completion signals (%d >= %d)", d, maxDoneSignals)}
	case c >= safetyExitIndicators:
		return ExitDecision{ExitSafetyBreaker, fmt.Sprintf("🚨 SAFETY CIRCUIT BREAKER: Force exit after 5 consecutive EXIT_SIGNAL=true responses (%d)", c)}
	case c >= completionIndicators && lastExitSignal:
		return ExitDecision{ExitProjectComplete, fmt.Sprintf("Exit condition: Strong completion indicators (%d) with EXIT_SIGNAL=true", c)}
	case plan.Total > 0 && plan.Completed == plan.Total:
		return ExitDecision{ExitPlanComplete, fmt.Sprintf("Exit condition: All @fix_plan.md items completed (%d/%d)", plan.Completed, plan.Total)}
	}
	return ExitDecision{}
}
