package session

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// IDFile is the content of .claude_session_id (and of a fallback
// driver's session file).
type IDFile struct {
	ID       string    // "" when the file holds none
	Stamp    time.Time // a legacy JSON file's "timestamp"
	HasStamp bool
}

// Age is how old the session f names is at now, for its expiry: the
// largest of the time since its file was written (the bash loop's only
// measure, which makes expiry an idle time), the time since a legacy JSON
// file's "timestamp", and the time since created_at of active when that
// active .ralph_session holds the same id (the session's real age, as the
// expiry is documented). active is the zero RalphSession when there is
// none to go by.
func (f IDFile) Age(written time.Time, active RalphSession, now time.Time) time.Duration {
	age := now.Sub(written)
	if f.HasStamp {
		age = max(age, now.Sub(f.Stamp))
	}
	if f.ID != "" && active.SessionID == f.ID {
		if created, ok := parseISO(active.CreatedAt); ok {
			age = max(age, now.Sub(created))
		}
	}
	return age
}

// ParseIDFile reads the bash loop's raw form (the id on the first line) or
// the legacy JSON form ({"session_id" or "sessionId", "timestamp"}). Empty
// content holds no id; an id ValidID rejects makes the file corrupt.
func ParseIDFile(b []byte) (IDFile, error) {
	text := strings.TrimSpace(string(b))
	var f IDFile
	if strings.HasPrefix(text, "{") {
		var m map[string]json.RawMessage
		if err := json.Unmarshal([]byte(text), &m); err != nil {
			return IDFile{}, fmt.Errorf("not valid JSON: %w", err)
		}
		if v, ok := stringField(m, "session_id"); ok {
			f.ID = v
		} else if v, ok := stringField(m, "sessionId"); ok {
			f.ID = v
		}
		if ts, ok := stringField(m, "timestamp"); ok {
			f.Stamp, f.HasStamp = parseISO(ts)
		}
	} else {
		first, _, _ := strings.Cut(text, "\n")
		f.ID = first
	}
	f.ID = strings.TrimSpace(f.ID)
	if f.ID != "" && !ValidID(f.ID) {
		return IDFile{}, fmt.Errorf("session id %s is not a usable agent session id", Quote(f.ID))
	}
	return f, nil
}

// Quote is id quoted for a message, clipped to 60 bytes.
func Quote(s string) string {
	if len(s) > 60 {
		return strconv.Quote(s[:60]) + "..."
	}
	return strconv.Quote(s)
}
