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
// process: read once now, then kept in memory as an observer of the loop:
// every report, as the store's sinks write status.json and the event log
// from it, and every change of the kept state, as the state store saves
// it. Call it after the store is on fan (a session change is read back
// from the file the store just wrote).
func Watch(fan *observe.Fan, f Files) dashboard.Source {
	l := newMemory(f)
	s := &liveObserver{l: l}
	s.Observer = observe.Lines(s.line)
	fan.Add(store.StatusTo(s.status), s)
	return l
}

// liveObserver keeps a memory View current from what the loop reports:
// the event log's lines (observe.Lines) and the kept state's changes; its
// status is status (store.StatusTo).
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

// WindowChanged takes the call window.
func (s *liveObserver) WindowChanged(w ratelimit.Window) error {
	s.l.update(func(r *folderState) { r.Window = w })
	return nil
}

// BreakerChecked takes the breaker after its start-of-iteration check.
func (s *liveObserver) BreakerChecked(st breaker.State, _ *breaker.Transition, _ bool) error {
	s.l.update(func(r *folderState) { r.Breaker = &st })
	return nil
}

// BreakerRecorded takes the breaker after a loop's result.
func (s *liveObserver) BreakerRecorded(st breaker.State, _ *breaker.Transition) error {
	s.l.update(func(r *folderState) { r.Breaker = &st })
	return nil
}

// AnalysisRecorded takes the last analysis.
func (s *liveObserver) AnalysisRecorded(a analysis.ResponseAnalysis) error {
	s.l.update(func(r *folderState) { r.Analysis = &a })
	return nil
}

// AnalysisCleared: a failed call leaves no analysis.
func (s *liveObserver) AnalysisCleared() error {
	s.l.update(func(r *folderState) { r.Analysis = nil })
	return nil
}

// The session's id and times are made by the session store: read back
// once per change, never at a page's poll.
func (s *liveObserver) session(reset bool) error {
	rs := readSession(s.l.f.Dir)
	s.l.update(func(r *folderState) {
		r.Session = rs
		if reset { // a reset removes the last analysis
			r.Analysis = nil
		}
	})
	return nil
}

// SessionStarted reads the session back.
func (s *liveObserver) SessionStarted(time.Time) error { return s.session(false) }

// SessionTouched reads the session back.
func (s *liveObserver) SessionTouched(time.Time) error { return s.session(false) }

// SessionIDSaved reads the session back.
func (s *liveObserver) SessionIDSaved(string, time.Time) error { return s.session(false) }

// SessionReset reads the session back; the last analysis is gone.
func (s *liveObserver) SessionReset(string, int, time.Time) error { return s.session(true) }
