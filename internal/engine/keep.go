package engine

import (
	"fmt"

	"github.com/ralphloop/ralph_loop/breaker"
	"github.com/ralphloop/ralph_loop/internal/events"
	"github.com/ralphloop/ralph_loop/internal/ralphdir"
	"github.com/ralphloop/ralph_loop/internal/store"
)

// Keeper saves the kept state: the state store (package store) in
// production, or the dashboard's view around it (package readmodel).
// The engine keeps the state in memory as one value (loop.kept) and hands
// it whole to Save at the save points below; Save writes what changed.
// An error is a save that failed, worded with its file and what it means,
// and nothing has been said of it yet: the engine decides (keep.go).
type Keeper interface {
	Save(k store.Kept) error
	// WritePlan writes @fix_plan.md as the loop edited it (edit says why).
	WritePlan(plan []byte, edit store.PlanEdit) error
}

// Discard is a Keeper that saves nothing: a dry run's, whose changes go
// nowhere.
var Discard Keeper = discard{}

type discard struct{}

func (discard) Save(store.Kept) error                  { return nil }
func (discard) WritePlan([]byte, store.PlanEdit) error { return nil }

// savePoint names a point of an iteration where the kept state is saved
// whole. Each is where something changed that must be on disk before
// what comes next: a line a session step says, an observer that reads the
// files after a report, or an agent call that may be the run's last.
type savePoint int

const (
	// savedStart: start-up, before the state is loaded: session tracking
	// starts ("Initialized session tracking").
	savedStart savePoint = iota
	// savedCheck: an iteration begins, before its breaker move is
	// reported: the session used, the call window rolled over, the
	// breaker checked (its cooldown, CB_AUTO_RESET).
	savedCheck
	// savedCallStart: before the call: the commit it starts from, the
	// diff summary handed to its context.
	savedCallStart
	// savedCall: the call counted in the hour's window (as soon as it
	// is known to count: a restarted run must not make it again).
	savedCall
	// savedReply: the reply was read: the error history, the output's
	// length, the session id it reported ("Saved session: …").
	savedReply
	// savedAnalysis: the call's analysis and the exit signals, the
	// quality gates' results and the diff summary for the next loop, or,
	// for a failed call, no analysis (and the write-heartbeat mark).
	savedAnalysis
	// savedBreaker: the breaker recorded the loop, before its move is
	// reported.
	savedBreaker
	// savedReview: a review call's commit and findings, or the findings
	// cleared once a loop took them.
	savedReview
	// savedReset: the session ends ("Session reset: …").
	savedReset
	// savedEnd: the run ends: whatever changed since the last point (a
	// window reset by a rate-limit wait).
	savedEnd
)

// save hands the kept state to the keeper at the point at (named for the
// reader: savePoint lists them), then empties its
// steps (the breaker's moves, the session steps), which are saved or lost.
// A failed save is warned of, one line a file, and the run goes on, as
// the bash loop does — but on a full disk (or quota) the run stops before
// its next call (stateLost) rather than work on with state it cannot keep.
func (l *loop) save(at savePoint) error {
	err := l.deps.Keeper.Save(l.kept)
	l.kept.BreakerMoves, l.kept.SessionSteps = nil, nil
	if err == nil {
		return nil
	}
	for _, e := range splitJoined(err) {
		l.warn(e)
		if ralphdir.NoSpace(e) && l.lost == nil {
			l.lost = e
		}
	}
	return err
}

// splitJoined is each error of an errors.Join (err itself otherwise).
func splitJoined(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

// stateLost stops the run before another call when a save failed for a
// full disk: what the next loops decide from would not be kept.
func (l *loop) stateLost() (Result, bool) {
	if l.lost == nil {
		return Result{}, false
	}
	err := fmt.Errorf("%w (free disk space, then run ralph_loop again)", l.lost)
	return Result{Code: ExitFailed, Action: "failed", Status: "error", Reason: outcomeDiskFull,
		Err: err, Stop: events.Stop{Kind: events.StopError, Err: err}}, true
}

// sessionStep adds what the engine did with the sessions to the kept
// state's steps.
func (l *loop) sessionStep(st store.SessionStep) {
	if st.At.IsZero() {
		st.At = l.now()
	}
	l.kept.SessionSteps = append(l.kept.SessionSteps, st)
}

// breakerMoved keeps the breaker's new state and its move (nil: none).
func (l *loop) breakerMoved(next breaker.State, tr *breaker.Transition) {
	l.kept.Breaker = next
	if tr != nil {
		l.kept.BreakerMoves = append(l.kept.BreakerMoves, *tr)
	}
}

// writePlan writes the plan as the loop edited it; a failure is warned of.
func (l *loop) writePlan(plan []byte, edit store.PlanEdit) error {
	err := l.deps.Keeper.WritePlan(plan, edit)
	if err != nil {
		l.warn(err)
	}
	return err
}
