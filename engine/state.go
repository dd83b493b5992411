package engine

import (
	"os"
	"time"

	"github.com/ralphloop/ralph_loop/analysis"
	"github.com/ralphloop/ralph_loop/breaker"
	"github.com/ralphloop/ralph_loop/gates"
	"github.com/ralphloop/ralph_loop/ratelimit"
	"github.com/ralphloop/ralph_loop/review"
	"github.com/ralphloop/ralph_loop/store"
)

// Store keeps the run's state on disk: the .ralph/ state store (package
// store) in production. The engine keeps the state in memory and decides
// from it; the store loads it once at start-up and writes each change the
// engine hands it. A write's error comes back to the engine, which turns
// it into a warning as the bash loop does and goes on. The agent's logs
// are opened through it too, so that the engine itself opens no file for
// writing.
type Store interface {
	Repair() (removedTemp int)
	Load() (store.Saved, error)
	SaveWindow(ratelimit.Window) error
	SaveBreakerStartup(st breaker.State, tr *breaker.Transition, created bool) error
	SaveBreaker(st breaker.State, tr *breaker.Transition) error
	SaveAnalysis(analysis.ResponseAnalysis) error
	RemoveAnalysis()
	SaveExitSignals(analysis.ExitSignals) error
	SaveErrorHistory(analysis.ErrorHistory)
	SaveOutputLength(int)
	SaveGates(*gates.Results) error
	SaveFindings(review.Findings) error
	RemoveFindings()
	SaveReviewSHA(string)
	SaveLoopStart(sha string)
	SaveDiffSummary(string)
	RemoveDiffSummary()
	MarkWriteTimeout(time.Time)
	ClearWriteTimeout()
	SavePlan([]byte) error

	StartSession(now time.Time) error
	TouchSession(now time.Time) error
	ResumeID(now time.Time, expiry time.Duration) (string, error)
	SaveSessionID(id string, now time.Time) error
	ResetSession(reason string, loop int, now time.Time) error

	CreateLog(name string) (*os.File, error)
	OpenLiveLog(header string) (*os.File, error)
	RemoveLog(name string)
	ReplaceLog(name string, data []byte) error
}
