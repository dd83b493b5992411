package session

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"strings"
	"time"

	"github.com/ralphloop/ralph_loop/internal/ralphdir"
)

// ResumeID is the bash loop's init_claude_session: it returns the agent
// session id to resume, or "" to start a new session, and logs the
// bash loop's line for the decision ("Resuming session: <id>... (<h>h old)",
// "Session expired (<h>h old, max <H>h), starting new session", "Starting new
// session", or the warning "Could not determine session age, starting new
// session").
//
// The session's age is the largest of: the time since .claude_session_id was
// last written (the bash loop's only measure, which makes expiry an idle
// time), the time since a legacy JSON file's "timestamp", and the time since
// created_at of an active .ralph_session holding the same id (the session's
// real age, as the expiry is documented). An age of expiry or more expires
// the session and removes the file. An id that ValidID rejects ("0", "null",
// whitespace, ...) is never resumed: the file is quarantined with a warning.
func (s *Store) ResumeID(now time.Time, expiry time.Duration) (string, error) {
	info, err := s.d.Lstat(ralphdir.ClaudeSessionID)
	if errors.Is(err, fs.ErrNotExist) {
		s.log(LevelInfo, "Starting new session")
		return "", nil
	}
	if err != nil || info.ModTime().Unix() <= 0 {
		s.log(LevelWarn, "Could not determine session age, starting new session")
		return "", s.ClearID()
	}
	var f idFile
	found, err := s.d.ReadValid(ralphdir.ClaudeSessionID, func(b []byte) error {
		var perr error
		f, perr = parseIDFile(b)
		return perr
	})
	if err != nil {
		return "", fmt.Errorf("read agent session id: %w", err)
	}
	if !found { // quarantined (ralphdir warned) or gone meanwhile
		s.log(LevelInfo, "Starting new session")
		return "", nil
	}

	age := now.Sub(info.ModTime())
	if f.hasStamp {
		age = max(age, now.Sub(f.stamp))
	}
	if f.id != "" {
		// An unreadable .ralph_session only means no created_at to go by.
		if rs, st, err := s.Current(now); err == nil && st == Active && rs.SessionID == f.id {
			if created, ok := ParseISO(rs.CreatedAt); ok {
				age = max(age, now.Sub(created))
			}
		}
	}
	if age >= expiry {
		s.log(LevelInfo, fmt.Sprintf("Session expired (%dh old, max %sh), starting new session", wholeHours(age), hoursText(expiry)))
		return "", s.ClearID()
	}
	if f.id == "" {
		s.log(LevelInfo, "Starting new session")
		return "", nil
	}
	s.log(LevelInfo, fmt.Sprintf("Resuming session: %s... (%dh old)", short(f.id), wholeHours(age)))
	return f.id, nil
}

// SaveID is the end of the bash loop's save_claude_session (and the
// analyzer's store_session_id): the id is written to .claude_session_id with
// a newline, mirrored into .ralph_session (created_at kept when the active
// session already has this id), and "Saved session: <id>..." is logged.
// Surrounding whitespace is trimmed. An empty id is ignored silently; an id
// ValidID rejects is ignored with a warning, so a parse failure's "0" or
// "null" never replaces a good id.
func (s *Store) SaveID(id string, now time.Time) error {
	id = strings.TrimSpace(id)
	if id == "" {
		return nil
	}
	if !ValidID(id) {
		s.log(LevelWarn, fmt.Sprintf("Ignoring invalid session id %s from the agent's output; keeping the previous session", quoteClip(id)))
		return nil
	}
	if err := s.d.WriteFile(ralphdir.ClaudeSessionID, []byte(id+"\n")); err != nil {
		return fmt.Errorf("save agent session id: %w", err)
	}
	if err := s.sync(id, now); err != nil {
		return err
	}
	s.log(LevelInfo, "Saved session: "+short(id)+"...")
	return nil
}

// ClearID removes .claude_session_id; a missing file is fine.
func (s *Store) ClearID() error {
	return s.d.Remove(ralphdir.ClaudeSessionID)
}

// idFile is the content of .claude_session_id.
type idFile struct {
	id       string    // "" when the file holds none
	stamp    time.Time // a legacy JSON file's "timestamp"
	hasStamp bool
}

// parseIDFile reads the bash loop's raw form (the id on the first line) or
// the legacy JSON form ({"session_id" or "sessionId", "timestamp"}). Empty
// content holds no id; an id ValidID rejects makes the file corrupt.
func parseIDFile(b []byte) (idFile, error) {
	text := strings.TrimSpace(string(b))
	var f idFile
	if strings.HasPrefix(text, "{") {
		var m map[string]json.RawMessage
		if err := json.Unmarshal([]byte(text), &m); err != nil {
			return idFile{}, fmt.Errorf("not valid JSON: %w", err)
		}
		if v, ok := stringField(m, "session_id"); ok {
			f.id = v
		} else if v, ok := stringField(m, "sessionId"); ok {
			f.id = v
		}
		if ts, ok := stringField(m, "timestamp"); ok {
			f.stamp, f.hasStamp = ParseISO(ts)
		}
	} else {
		first, _, _ := strings.Cut(text, "\n")
		f.id = first
	}
	f.id = strings.TrimSpace(f.id)
	if f.id != "" && !ValidID(f.id) {
		return idFile{}, fmt.Errorf("session id %s is not a usable agent session id", quoteClip(f.id))
	}
	return f, nil
}

func wholeHours(d time.Duration) int64 {
	if d < 0 {
		return 0
	}
	return int64(d / time.Hour)
}

// hoursText is the configured expiry in hours: "24", or "1.5" for a
// duration that is not whole hours.
func hoursText(d time.Duration) string {
	if d%time.Hour == 0 {
		return strconv.FormatInt(int64(d/time.Hour), 10)
	}
	return strconv.FormatFloat(d.Hours(), 'f', -1, 64)
}

func quoteClip(s string) string {
	if len(s) > 60 {
		return strconv.Quote(s[:60]) + "..."
	}
	return strconv.Quote(s)
}
