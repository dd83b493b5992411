package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/ralphloop/ralph_loop/internal/ralphdir"
)

// Reset reasons written to .ralph_session and its history, as the bash loop
// uses them. Reset accepts any other text too.
const (
	ReasonManualReset            = "manual_reset" // the default when none is given
	ReasonManualResetFlag        = "manual_reset_flag"
	ReasonManualCircuitReset     = "manual_circuit_reset"
	ReasonProjectComplete        = "project_complete"
	ReasonCircuitBreakerOpen     = "circuit_breaker_open"
	ReasonCircuitBreakerTrip     = "circuit_breaker_trip"
	ReasonReadOnlyCircuitBreaker = "read_only_circuit_breaker"
	ReasonPermissionDenied       = "permission_denied"
	ReasonManualInterrupt        = "manual_interrupt"
)

// HistoryCap is how many entries .ralph_session_history keeps.
const HistoryCap = 50

// emptyExitSignals is the bash loop's fresh .exit_signals, byte for byte.
const emptyExitSignals = `{"test_only_loops": [], "done_signals": [], "completion_indicators": []}` + "\n"

// RalphSession is .ralph_session. Active: {session_id, created_at,
// last_used}; inactive: {"session_id": "", reset_at, reset_reason}.
// Timestamps are kept as the text read so a file from the bash loop is
// written back unchanged.
type RalphSession struct {
	SessionID   string `json:"session_id"`
	CreatedAt   string `json:"created_at,omitempty"`
	LastUsed    string `json:"last_used,omitempty"`
	ResetAt     string `json:"reset_at,omitempty"`
	ResetReason string `json:"reset_reason,omitempty"`
}

// State classifies .ralph_session as the bash loop and bmalph do.
type State int

const (
	Missing  State = iota // no file
	Invalid               // not JSON, session_id not a string, or a bad created_at; it has been quarantined
	Inactive              // session_id ""
	Active                // session_id set, created_at a past timestamp
)

// HistoryEntry is one element of .ralph_session_history.
type HistoryEntry struct {
	Timestamp  string `json:"timestamp"`
	FromState  string `json:"from_state"`
	ToState    string `json:"to_state"`
	Reason     string `json:"reason"`
	LoopNumber int    `json:"loop_number"`
}

// Current reads .ralph_session and classifies it at now. An invalid file is
// moved aside by ralphdir (with its warning) and reported as Invalid with a
// zero RalphSession; the error is only for a file that cannot be read or
// moved.
func (s *Store) Current(now time.Time) (RalphSession, State, error) {
	var rs RalphSession
	bad := false
	found, err := s.d.ReadValid(ralphdir.RalphSession, func(b []byte) error {
		r, err := decodeRalphSession(b, now)
		if err != nil {
			bad = true
			return err
		}
		rs = r
		return nil
	})
	switch {
	case err != nil:
		return RalphSession{}, Invalid, fmt.Errorf("read ralph session: %w", err)
	case bad:
		return RalphSession{}, Invalid, nil
	case !found:
		return RalphSession{}, Missing, nil
	case rs.SessionID == "":
		return rs, Inactive, nil
	}
	return rs, Active, nil
}

// Start is the bash loop's init_session_tracking, once at start-up: an
// active session from an earlier run is kept as it is; otherwise a new
// active session ralph-<epoch>-<n> is written (after the warning "Corrupted
// session file detected, recreating..." when the old file was invalid).
func (s *Store) Start(now time.Time) (RalphSession, error) {
	cur, st, err := s.Current(now)
	if err != nil {
		return RalphSession{}, err
	}
	if st == Active {
		return cur, nil
	}
	if st == Invalid {
		s.log(LevelWarn, "Corrupted session file detected, recreating...")
	}
	ts := FormatISO(now)
	rs := RalphSession{SessionID: s.NewRalphID(now), CreatedAt: ts, LastUsed: ts}
	if err := s.write(rs); err != nil {
		return RalphSession{}, err
	}
	s.log(LevelInfo, "Initialized session tracking (session: "+rs.SessionID+")")
	return rs, nil
}

// Touch is the bash loop's update_session_last_used, at the start of every
// iteration: an active session gets last_used = now; anything else is left
// alone.
func (s *Store) Touch(now time.Time) error {
	cur, st, err := s.Current(now)
	if err != nil || st != Active {
		return err
	}
	cur.LastUsed = FormatISO(now)
	return s.write(cur)
}

// sync mirrors a saved agent session id into .ralph_session: created_at is
// kept when the active session already has this id, else it is now.
func (s *Store) sync(id string, now time.Time) error {
	cur, st, err := s.Current(now)
	if err != nil {
		return err
	}
	ts := FormatISO(now)
	rs := RalphSession{SessionID: id, CreatedAt: ts, LastUsed: ts}
	if st == Active && cur.SessionID == id {
		rs.CreatedAt = cur.CreatedAt
	}
	return s.write(rs)
}

// Reset is the bash loop's reset_session: .ralph_session becomes inactive
// with reason (ReasonManualReset when empty) and reset_at = now;
// .claude_session_id (and any fallback driver's session file) is removed;
// .exit_signals, when it exists, is replaced by the empty one-liner; .response_analysis is removed; a history entry
// {timestamp, "active", "reset", reason, loop} is appended; and "Session
// reset: <reason>" is logged. loop is the current loop number, 0 outside
// the loop (--reset-session, --reset-circuit). A failure to write the
// history is logged as a warning and does not fail the reset, as in the
// bash loop; the other steps are all attempted and their errors joined.
func (s *Store) Reset(reason string, loop int, now time.Time) error {
	if reason == "" {
		reason = ReasonManualReset
	}
	ts := FormatISO(now)
	var errs []error
	if err := s.write(RalphSession{ResetAt: ts, ResetReason: reason}); err != nil {
		errs = append(errs, err)
	}
	if err := s.ClearID(); err != nil {
		errs = append(errs, err)
	}
	if err := s.clearFallbackIDs(); err != nil {
		errs = append(errs, err)
	}
	if s.d.Exists(ralphdir.ExitSignals) {
		if err := s.d.WriteFile(ralphdir.ExitSignals, []byte(emptyExitSignals)); err != nil {
			errs = append(errs, fmt.Errorf("clear exit signals: %w", err))
		} else if s.Verbose {
			s.log(LevelInfo, "Cleared exit signals file")
		}
	}
	if err := s.d.Remove(ralphdir.ResponseAnalysis); err != nil {
		errs = append(errs, err)
	}
	entry := HistoryEntry{Timestamp: ts, FromState: "active", ToState: "reset", Reason: reason, LoopNumber: loop}
	if err := s.appendHistory(entry); err != nil {
		s.log(LevelWarn, fmt.Sprintf("Could not record the session reset in %s: %v", ralphdir.RalphSessionHistory, err))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("reset session (%s): %w", reason, err)
	}
	s.log(LevelInfo, "Session reset: "+reason)
	return nil
}

func (s *Store) readHistory() ([]json.RawMessage, error) {
	var raw []json.RawMessage
	if _, err := s.d.ReadJSON(ralphdir.RalphSessionHistory, &raw); err != nil {
		return nil, fmt.Errorf("read session history: %w", err)
	}
	return raw, nil
}

// appendHistory adds e and keeps the last HistoryCap entries. Entries
// already in the file are kept byte for byte, whatever their shape.
func (s *Store) appendHistory(e HistoryEntry) error {
	raw, err := s.readHistory()
	if err != nil {
		return err
	}
	b, err := json.Marshal(e)
	if err != nil {
		return err
	}
	raw = append(raw, b)
	if len(raw) > HistoryCap {
		raw = raw[len(raw)-HistoryCap:]
	}
	return s.d.WriteJSON(ralphdir.RalphSessionHistory, raw)
}

func (s *Store) write(rs RalphSession) error {
	if err := s.d.WriteJSON(ralphdir.RalphSession, rs); err != nil {
		return fmt.Errorf("write ralph session: %w", err)
	}
	return nil
}

// decodeRalphSession applies the bash loop's validity rules.
func decodeRalphSession(b []byte, now time.Time) (RalphSession, error) {
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
	t, ok := ParseISO(created)
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
