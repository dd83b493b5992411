package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/ralphloop/ralph_loop/breaker"
	"github.com/ralphloop/ralph_loop/internal/ralphdir"
)

// loadBreaker reads .ralph/.circuit_breaker_state. A missing file is a
// CLOSED state with no LastChange (Startup stamps it). An empty or corrupt
// file, or one whose "state" is not CLOSED, HALF_OPEN or OPEN, is moved
// aside by ralphdir with a warning and also yields CLOSED: a damaged file
// never disables the breaker.
func loadBreaker(d *ralphdir.Dir) (breaker.State, error) {
	var s breaker.State
	found, err := d.ReadJSON(ralphdir.CircuitBreakerState, &s)
	if err != nil {
		return breaker.State{State: breaker.Closed}, fmt.Errorf("load breaker state: %w", err)
	}
	if !found {
		return breaker.State{State: breaker.Closed}, nil
	}
	return s, nil
}

// peekBreaker reads .ralph/.circuit_breaker_state for a command that only
// looks: nothing is created, moved aside or rewritten. A missing file is a
// fresh CLOSED state at now. A file that cannot be read as a state (empty,
// corrupt, an unknown "state", a named pipe, too big) is shown as CLOSED
// too, and damaged says what is wrong with it; the loop moves it aside
// when it next starts. read is whether the state came from the file.
func peekBreaker(d *ralphdir.Dir, now time.Time) (s breaker.State, read bool, damaged error) {
	data, found, err := d.ReadFile(ralphdir.CircuitBreakerState)
	switch {
	case err != nil:
		return breaker.Fresh(now), false, err
	case !found:
		return breaker.Fresh(now), false, nil
	case len(bytes.TrimSpace(data)) == 0:
		return breaker.Fresh(now), false, errors.New("the file is empty")
	}
	if err := json.Unmarshal(data, &s); err != nil {
		return breaker.Fresh(now), false, err
	}
	return s, true, nil
}

// SaveBreaker writes s to .ralph/.circuit_breaker_state atomically, as
// pretty JSON in the bash loop's key order.
func SaveBreaker(d *ralphdir.Dir, s breaker.State) error {
	if err := d.WriteJSON(ralphdir.CircuitBreakerState, s); err != nil {
		return fmt.Errorf("save breaker state: %w", err)
	}
	return nil
}

// readBreakerHistory returns the history's entries untouched (so entries
// written by another tool survive byte for byte), an empty list when the
// file is missing, or when it is corrupt or not an array (then it is moved
// aside).
func readBreakerHistory(d *ralphdir.Dir) ([]json.RawMessage, bool, error) {
	var entries []json.RawMessage
	found, err := d.ReadJSON(circuitBreakerHistory, &entries)
	if err != nil {
		return nil, false, fmt.Errorf("read breaker history: %w", err)
	}
	if entries == nil {
		entries = []json.RawMessage{} // "[]", never "null"
	}
	return entries, found, nil
}

// ensureBreakerHistory creates .circuit_breaker_history as "[]" when it is
// missing (or was corrupt), as the bash loop does before any transition.
func ensureBreakerHistory(d *ralphdir.Dir) error {
	entries, found, err := readBreakerHistory(d)
	if err != nil || found {
		return err
	}
	if err := d.WriteJSON(circuitBreakerHistory, entries); err != nil {
		return fmt.Errorf("create breaker history: %w", err)
	}
	return nil
}

// appendBreakerHistory appends t to .circuit_breaker_history. The history
// is never truncated, as the bash loop does.
func appendBreakerHistory(d *ralphdir.Dir, t breaker.Transition) error {
	entries, _, err := readBreakerHistory(d)
	if err != nil {
		return err
	}
	e, err := t.HistoryJSON()
	if err != nil {
		return err
	}
	entries = append(entries, e)
	if err := d.WriteJSON(circuitBreakerHistory, entries); err != nil {
		return fmt.Errorf("append breaker history: %w", err)
	}
	return nil
}
