package breaker

import (
	"bytes"
	"encoding/json"
	"errors"
	"time"

	"github.com/ralphloop/ralph_loop/internal/ralphdir"
)

// Peek reads .ralph/.circuit_breaker_state for a command that only looks
// (--circuit-status): nothing is created, moved aside or rewritten. A
// missing file is a fresh CLOSED state at now. A file that cannot be read
// as a state (empty, corrupt, an unknown "state", a named pipe, too big)
// is shown as CLOSED too, and damaged says what is wrong with it; the
// loop moves it aside when it next starts (Load).
func Peek(d *ralphdir.Dir, now time.Time) (s State, damaged error) {
	data, found, err := d.ReadFile(ralphdir.CircuitBreakerState)
	switch {
	case err != nil:
		return Fresh(now), err
	case !found:
		return Fresh(now), nil
	case len(bytes.TrimSpace(data)) == 0:
		return Fresh(now), errors.New("the file is empty")
	}
	if err := json.Unmarshal(data, &s); err != nil {
		return Fresh(now), err
	}
	return s, nil
}
