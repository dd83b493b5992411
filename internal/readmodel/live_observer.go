package readmodel

import (
	"encoding/json"

	"github.com/ralphloop/ralph_loop/analysis"
	"github.com/ralphloop/ralph_loop/internal/dashboard"
	"github.com/ralphloop/ralph_loop/internal/engine"
	"github.com/ralphloop/ralph_loop/internal/events"
	"github.com/ralphloop/ralph_loop/internal/observe"
	"github.com/ralphloop/ralph_loop/internal/ralphdir"
	"github.com/ralphloop/ralph_loop/internal/store"
	"github.com/ralphloop/ralph_loop/session"
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
func Watch(fan *observe.Fan, k engine.Keeper, f Files) (dashboard.Source, engine.Keeper) {
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

// liveKeeper hands the kept state to the keeper it wraps, then keeps the
// memory View current from it, saved or not (a failed save is the
// engine's to decide about).
type liveKeeper struct {
	engine.Keeper
	l *memory
}

var _ engine.Keeper = (*liveKeeper)(nil)

// Save takes the call window, the breaker and the last analysis (a copy;
// nil: none), and, when the engine did something with the sessions, the
// session as the store just wrote it: its id and times are made by the
// session store, so the file is read back once per step, never at a
// page's poll.
func (s *liveKeeper) Save(k store.Kept) error {
	err := s.Keeper.Save(k)
	br := k.Breaker
	var a *analysis.ResponseAnalysis
	if k.Analysis != nil {
		c := *k.Analysis
		a = &c
	}
	var rs *session.RalphSession
	if len(k.SessionSteps) > 0 {
		rs = readSession(s.l.f.Dir)
	}
	s.l.update(func(r *folderState) {
		// Before the engine loaded the state (start-up's first save: its
		// breaker has no state yet) only its session steps are its own.
		if k.Breaker.State != "" {
			r.Window, r.Breaker, r.Analysis = k.Window, &br, a
		}
		if len(k.SessionSteps) > 0 {
			r.Session = rs
		}
	})
	return err
}
