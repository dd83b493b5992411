package readmodel

import (
	"encoding/json"
	"time"

	"github.com/ralphloop/ralph_loop/analysis"
	"github.com/ralphloop/ralph_loop/breaker"
	"github.com/ralphloop/ralph_loop/internal/dashboard"
	"github.com/ralphloop/ralph_loop/internal/events"
	"github.com/ralphloop/ralph_loop/internal/observe"
	"github.com/ralphloop/ralph_loop/internal/ralphdir"
	"github.com/ralphloop/ralph_loop/internal/store"
	"github.com/ralphloop/ralph_loop/ratelimit"
)

// This file is where the read model meets the engine: the one place to
// change when the engine reports in another way.

// Watch is the dashboard source of f's folder for the loop running in this
// process: read once now, then kept in memory as the loop goes on. It
// observes every report on fan, as the store's sinks write status.json and
// the event log from it, and it sees every change of the kept state as k
// saves it: the keeper it returns is k, which the engine must be given in
// its place (each change goes to k first, then to the source, which reads
// a session change back from the file k just wrote).
func Watch(fan *observe.Fan, k observe.Keeper, f Files) (dashboard.Source, observe.Keeper) {
	l := newMemory(f)
	s := &liveObserver{l: l}
	s.Observer = observe.Lines(s.line)
	fan.Add(store.StatusTo(s.status), s)
	return l, &liveKeeper{Keeper: k, l: l}
}

// liveObserver keeps a memory View current from what the loop reports:
// the event log's lines (observe.Lines); its status is status
// (store.StatusTo).
type liveObserver struct {
	observe.Observer
	l *memory
}

var _ observe.Observer = (*liveObserver)(nil)

// status takes status.json's content.
func (s *liveObserver) status(sf store.StatusFile) {
	b, _ := ralphdir.MarshalJSON(sf)
	s.l.update(func(r *folderState) { r.Status, r.StatusFound, r.StatusErr = b, true, nil })
}

// line takes a line of the event log.
func (s *liveObserver) line(e events.Event) {
	b, _ := json.Marshal(e)
	s.l.update(func(r *folderState) { r.Events = append(append(r.Events, b...), '\n') })
}

// liveKeeper hands each change of the kept state to the keeper it wraps,
// then keeps the memory View current from it, saved or not (a failed
// save is the keeper's to warn of).
type liveKeeper struct {
	observe.Keeper
	l *memory
}

var _ observe.Keeper = (*liveKeeper)(nil)

// WindowChanged takes the call window.
func (s *liveKeeper) WindowChanged(w ratelimit.Window) error {
	err := s.Keeper.WindowChanged(w)
	s.l.update(func(r *folderState) { r.Window = w })
	return err
}

// BreakerChecked takes the breaker after its start-of-iteration check.
func (s *liveKeeper) BreakerChecked(st breaker.State, tr *breaker.Transition, created bool) error {
	err := s.Keeper.BreakerChecked(st, tr, created)
	s.l.update(func(r *folderState) { r.Breaker = &st })
	return err
}

// BreakerRecorded takes the breaker after a loop's result.
func (s *liveKeeper) BreakerRecorded(st breaker.State, tr *breaker.Transition) error {
	err := s.Keeper.BreakerRecorded(st, tr)
	s.l.update(func(r *folderState) { r.Breaker = &st })
	return err
}

// AnalysisChanged takes the last analysis (a copy); nil: a failed call
// leaves none.
func (s *liveKeeper) AnalysisChanged(a *analysis.ResponseAnalysis) error {
	err := s.Keeper.AnalysisChanged(a)
	if a != nil {
		c := *a
		a = &c
	}
	s.l.update(func(r *folderState) { r.Analysis = a })
	return err
}

// session takes the session after err, its save: its id and times are
// made by the session store, so the file is read back once per change,
// never at a page's poll.
func (s *liveKeeper) session(err error, reset bool) error {
	rs := readSession(s.l.f.Dir)
	s.l.update(func(r *folderState) {
		r.Session = rs
		if reset { // a reset removes the last analysis
			r.Analysis = nil
		}
	})
	return err
}

// SessionStarted reads the session back.
func (s *liveKeeper) SessionStarted(at time.Time) error {
	return s.session(s.Keeper.SessionStarted(at), false)
}

// SessionTouched reads the session back.
func (s *liveKeeper) SessionTouched(at time.Time) error {
	return s.session(s.Keeper.SessionTouched(at), false)
}

// SessionIDSaved reads the session back.
func (s *liveKeeper) SessionIDSaved(id string, at time.Time) error {
	return s.session(s.Keeper.SessionIDSaved(id, at), false)
}

// SessionReset reads the session back; the last analysis is gone.
func (s *liveKeeper) SessionReset(reason string, loop int, at time.Time) error {
	return s.session(s.Keeper.SessionReset(reason, loop, at), true)
}
