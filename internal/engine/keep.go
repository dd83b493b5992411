package engine

import "github.com/ralphloop/ralph_loop/internal/events"

// keep records c for the state store to save, and reports false when the
// save failed. A failed save is never dropped: it is reported once, as a
// warning that says what could not be written and what that means (the
// store words it), and the run goes on, as the bash loop does.
func (l *loop) keep(c events.Change) bool {
	if err := l.bus.Record(c); err != nil {
		l.saveFailed(err)
		return false
	}
	return true
}

// saveFailed is the one place a failed save reaches the person.
func (l *loop) saveFailed(err error) { l.bus.Note(events.Warning{Err: err}) }
