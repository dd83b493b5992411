package events

import (
	"github.com/ralphloop/ralph_loop/analysis"
	"github.com/ralphloop/ralph_loop/breaker"
	"github.com/ralphloop/ralph_loop/internal/gates"
	"github.com/ralphloop/ralph_loop/internal/review"
	"github.com/ralphloop/ralph_loop/ratelimit"
)

// Saved is the state earlier runs kept, as the state store loads it once
// at start-up: the engine starts from it and from then on keeps it in
// memory.
type Saved struct {
	Window          ratelimit.Window
	Breaker         breaker.State
	ExitSignals     analysis.ExitSignals
	HaveExitSignals bool
	Analysis        *analysis.ResponseAnalysis // nil: none
	ErrorHistory    analysis.ErrorHistory
	OutputLength    int // the last output's length, 0 when none
	Gates           *gates.Results
	Findings        *review.Findings
	ReviewSHA       string
	DiffSummary     string // the last loop's diff summary, trimmed
}
