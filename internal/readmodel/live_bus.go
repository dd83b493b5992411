package readmodel

import (
	"encoding/json"

	"github.com/ralphloop/ralph_loop/internal/dashboard"
	"github.com/ralphloop/ralph_loop/internal/events"
	"github.com/ralphloop/ralph_loop/internal/ralphdir"
	"github.com/ralphloop/ralph_loop/internal/store"
)

// This file is where the read model meets the engine's bus: the one place
// to change when the engine reports in another way.

// Watch is the dashboard source of f's folder for the loop running in this
// process: read once now, then kept in memory from bus: every event, as
// the store's sinks write status.json and the event log from it, and
// every change the engine records, as the state store writes it. Call it
// after the store is on bus (a session change is read back from the file
// the store just wrote).
func Watch(bus *events.Bus, f Files) dashboard.Source {
	l := newMemory(f)
	bus.Add(liveSink{l})
	return l
}

type liveSink struct{ l *memory }

// Handle takes status.json and the event log's line from the event.
func (s liveSink) Handle(e events.Event) {
	if e.Status == "" && e.Type == events.IterationProgress {
		return
	}
	var status, line []byte
	if e.Status != "" {
		status, _ = ralphdir.MarshalJSON(store.StatusOf(e))
	}
	if e.Type != events.IterationProgress {
		line, _ = json.Marshal(e)
	}
	s.l.update(func(r *folderState) {
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
		s.l.update(func(r *folderState) { r.Window = c.Window })
	case events.BreakerChecked:
		s.l.update(func(r *folderState) { r.Breaker = &c.State })
	case events.BreakerRecorded:
		s.l.update(func(r *folderState) { r.Breaker = &c.State })
	case events.AnalysisRecorded:
		s.l.update(func(r *folderState) { r.Analysis = &c.Analysis })
	case events.AnalysisCleared:
		s.l.update(func(r *folderState) { r.Analysis = nil })
	case events.SessionStarted, events.SessionTouched, events.SessionIDSaved, events.SessionReset:
		// The session's id and times are made by the session store:
		// read back once per change, never at a page's poll.
		rs := readSession(s.l.f.Dir)
		_, reset := c.(events.SessionReset)
		s.l.update(func(r *folderState) {
			r.Session = rs
			if reset { // a reset removes the last analysis
				r.Analysis = nil
			}
		})
	}
	return nil
}
