package readmodel

import (
	"encoding/json"

	"github.com/ralphloop/ralph_loop/internal/events"
	"github.com/ralphloop/ralph_loop/internal/ralphdir"
	"github.com/ralphloop/ralph_loop/internal/store"
)

// This file is where the read model meets the engine's bus: the one place
// to change when the engine reports in another way.

// Watch keeps l up to date from bus: every event, as the store's sinks
// write status.json and the event log from it, and every change the
// engine records, as the state store writes it. Add it after the store
// (a session change is read back from the file the store just wrote).
func Watch(bus *events.Bus, l *Live) { bus.Add(liveSink{l}) }

type liveSink struct{ l *Live }

// Handle takes status.json and the event log's line from the event.
func (s liveSink) Handle(e events.Event) {
	sf, hasStatus := store.StatusFor(e)
	if !hasStatus && e.Type == events.IterationProgress {
		return
	}
	var status, line []byte
	if hasStatus {
		status, _ = ralphdir.MarshalJSON(sf)
	}
	if e.Type != events.IterationProgress {
		line, _ = json.Marshal(e)
	}
	s.l.Update(func(r *Raw) {
		if status != nil {
			r.Status, r.StatusFound, r.StatusErr = status, true, nil
		}
		if line != nil {
			r.Events = append(append(r.Events, line...), '\n')
		}
	})
}

// Apply takes the call window, the breaker, the last analysis and the
// session from the engine's changes.
func (s liveSink) Apply(c events.Change) error {
	switch c := c.(type) {
	case events.WindowChanged:
		s.l.Update(func(r *Raw) { r.Window = c.Window })
	case events.BreakerChecked:
		s.l.Update(func(r *Raw) { r.Breaker = &c.State })
	case events.BreakerRecorded:
		s.l.Update(func(r *Raw) { r.Breaker = &c.State })
	case events.AnalysisRecorded:
		s.l.Update(func(r *Raw) { r.Analysis = &c.Analysis })
	case events.AnalysisCleared:
		s.l.Update(func(r *Raw) { r.Analysis = nil })
	case events.SessionStarted, events.SessionTouched, events.SessionIDSaved, events.SessionReset:
		// The session's id and times are made by the session store:
		// read back once per change, never at a page's poll.
		rs := readSession(s.l.files.Dir)
		_, reset := c.(events.SessionReset)
		s.l.Update(func(r *Raw) {
			r.Session = rs
			if reset { // a reset removes the last analysis
				r.Analysis = nil
			}
		})
	}
	return nil
}
