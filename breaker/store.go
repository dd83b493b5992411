package breaker

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/ralphloop/ralph_loop/internal/ralphdir"
)

// Load reads .ralph/.circuit_breaker_state. A missing file is a CLOSED
// state with no LastChange (Startup stamps it). An empty or corrupt file,
// or one whose "state" is not CLOSED, HALF_OPEN or OPEN, is moved aside by
// ralphdir with a warning and also yields CLOSED: a damaged file never
// disables the breaker.
func Load(d *ralphdir.Dir) (State, error) {
	var s State
	found, err := d.ReadJSON(ralphdir.CircuitBreakerState, &s)
	if err != nil {
		return State{State: Closed}, fmt.Errorf("load breaker state: %w", err)
	}
	if !found {
		return State{State: Closed}, nil
	}
	return s, nil
}

// Save writes s to .ralph/.circuit_breaker_state atomically, as pretty
// JSON in the bash loop's key order.
func Save(d *ralphdir.Dir, s State) error {
	if err := d.WriteJSON(ralphdir.CircuitBreakerState, s); err != nil {
		return fmt.Errorf("save breaker state: %w", err)
	}
	return nil
}

// historyEntry is one element of .circuit_breaker_history, in the
// bash loop's key order.
type historyEntry struct {
	Timestamp string `json:"timestamp"`
	Loop      int    `json:"loop"`
	FromState string `json:"from_state"`
	ToState   string `json:"to_state"`
	Reason    string `json:"reason"`
}

// readHistory returns the history's entries untouched (so entries written
// by another tool survive byte for byte), an empty list when the file is
// missing, or when it is corrupt or not an array (then it is moved aside).
func readHistory(d *ralphdir.Dir) ([]json.RawMessage, bool, error) {
	var entries []json.RawMessage
	found, err := d.ReadJSON(ralphdir.CircuitBreakerHistory, &entries)
	if err != nil {
		return nil, false, fmt.Errorf("read breaker history: %w", err)
	}
	if entries == nil {
		entries = []json.RawMessage{} // "[]", never "null"
	}
	return entries, found, nil
}

// EnsureHistory creates .circuit_breaker_history as "[]" when it is
// missing (or was corrupt), as the bash loop does before any transition.
func EnsureHistory(d *ralphdir.Dir) error {
	entries, found, err := readHistory(d)
	if err != nil || found {
		return err
	}
	if err := d.WriteJSON(ralphdir.CircuitBreakerHistory, entries); err != nil {
		return fmt.Errorf("create breaker history: %w", err)
	}
	return nil
}

// AppendHistory appends t to .circuit_breaker_history. The history is
// never truncated, as the bash loop does.
func AppendHistory(d *ralphdir.Dir, t Transition) error {
	entries, _, err := readHistory(d)
	if err != nil {
		return err
	}
	var e bytes.Buffer
	enc := json.NewEncoder(&e)
	enc.SetEscapeHTML(false) // jq writes ">=" as is
	if err := enc.Encode(historyEntry{
		Timestamp: formatISO(stamp(t.At)),
		Loop:      t.Loop,
		FromState: t.From,
		ToState:   t.To,
		Reason:    t.Reason,
	}); err != nil {
		return fmt.Errorf("encode breaker history entry: %w", err)
	}
	entries = append(entries, bytes.TrimRight(e.Bytes(), "\n"))
	if err := d.WriteJSON(ralphdir.CircuitBreakerHistory, entries); err != nil {
		return fmt.Errorf("append breaker history: %w", err)
	}
	return nil
}

// SaveStartup keeps the breaker after the per-iteration start-up check
// (State.Startup: cooldown, auto-reset), as the bash loop's
// init_circuit_breaker does: the history file always exists, a transition
// is appended to it, and the state is written when it changed or was never
// written (created).
func SaveStartup(d *ralphdir.Dir, s State, t *Transition, created bool) error {
	if err := EnsureHistory(d); err != nil {
		return err
	}
	if t != nil {
		if err := AppendHistory(d, *t); err != nil {
			return err
		}
	}
	if t != nil || created {
		return Save(d, s)
	}
	return nil
}

// SaveRecorded keeps the breaker after a loop was recorded (State.Record):
// the state, then the transition, if any, in the history, in the bash
// loop's order.
func SaveRecorded(d *ralphdir.Dir, s State, t *Transition) error {
	if err := Save(d, s); err != nil {
		return err
	}
	if t != nil {
		return AppendHistory(d, *t)
	}
	return nil
}
