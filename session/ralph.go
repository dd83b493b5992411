package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Reset reasons written to .ralph_session and its history that ralph_loop's
// commands and store name. The loop passes the bash loop's other reasons
// (project_complete, circuit_breaker_open, circuit_breaker_trip,
// read_only_circuit_breaker, permission_denied, manual_interrupt) as text;
// any text is accepted.
const (
	ReasonManualReset        = "manual_reset" // the default when none is given
	ReasonManualResetFlag    = "manual_reset_flag"
	ReasonManualCircuitReset = "manual_circuit_reset"
)

// historyCap is how many entries .ralph_session_history keeps.
const historyCap = 50

// RalphSession is .ralph_session. Active: {session_id, created_at,
// last_used}; inactive: {"session_id": "", reset_at, reset_reason}.
// Timestamps are kept as the text read so a file from the bash loop is
// written back unchanged. A RalphSession that Decode returns is active when
// it has a SessionID (Decode checked that its created_at is a past
// timestamp), inactive when SessionID is ""; the bash loop and bmalph
// classify the file so. A missing or invalid file means no session.
type RalphSession struct {
	SessionID   string `json:"session_id"`
	CreatedAt   string `json:"created_at,omitempty"`
	LastUsed    string `json:"last_used,omitempty"`
	ResetAt     string `json:"reset_at,omitempty"`
	ResetReason string `json:"reset_reason,omitempty"`
}

// historyEntry is one element of .ralph_session_history.
type historyEntry struct {
	Timestamp  string `json:"timestamp"`
	FromState  string `json:"from_state"`
	ToState    string `json:"to_state"`
	Reason     string `json:"reason"`
	LoopNumber int    `json:"loop_number"`
}

// AppendHistory is .ralph_session_history after a reset at now for reason
// in loop (0 outside the loop): history, the file's entries, kept byte for
// byte whatever their shape, with {timestamp, "active", "reset", reason,
// loop_number} appended, and only the last historyCap (50) entries kept.
func AppendHistory(history []json.RawMessage, reason string, loop int, now time.Time) ([]json.RawMessage, error) {
	b, err := json.Marshal(historyEntry{Timestamp: formatISO(now), FromState: "active", ToState: "reset", Reason: reason, LoopNumber: loop})
	if err != nil {
		return nil, err
	}
	history = append(history, b)
	if len(history) > historyCap {
		history = history[len(history)-historyCap:]
	}
	return history, nil
}

// Decode reads .ralph_session with the bash loop's validity rules at now:
// a JSON object whose session_id is a string; an active session (an id)
// needs a created_at timestamp that is not in the future.
func Decode(b []byte, now time.Time) (RalphSession, error) {
	if len(bytes.TrimSpace(b)) == 0 {
		return RalphSession{}, errors.New("file is empty")
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return RalphSession{}, fmt.Errorf("not a JSON object: %w", err)
	}
	if m == nil {
		return RalphSession{}, errors.New("not a JSON object")
	}
	id, ok := stringField(m, "session_id")
	if !ok {
		return RalphSession{}, errors.New("session_id is missing or not a string")
	}
	rs := RalphSession{SessionID: id}
	if id == "" {
		rs.ResetAt, _ = stringField(m, "reset_at")
		rs.ResetReason, _ = stringField(m, "reset_reason")
		return rs, nil
	}
	created, ok := stringField(m, "created_at")
	if !ok {
		return RalphSession{}, errors.New("created_at is missing or not a string")
	}
	t, ok := parseISO(created)
	if !ok {
		return RalphSession{}, fmt.Errorf("created_at %q is not a timestamp", created)
	}
	if t.After(now) {
		return RalphSession{}, fmt.Errorf("created_at %s is in the future", created)
	}
	rs.CreatedAt = created
	rs.LastUsed, _ = stringField(m, "last_used")
	return rs, nil
}

// stringField returns m[key] when it is a JSON string.
func stringField(m map[string]json.RawMessage, key string) (string, bool) {
	raw, ok := m[key]
	if !ok {
		return "", false
	}
	var v string
	if len(raw) == 0 || raw[0] != '"' || json.Unmarshal(raw, &v) != nil {
		return "", false
	}
	return v, true
}
