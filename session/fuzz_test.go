package session

import (
	"testing"
	"time"
)

// Whatever .claude_session_id holds, reading it never panics and never
// yields an id that may not be resumed.
func FuzzParseIDFile(f *testing.F) {
	for _, s := range []string{
		"sess-abc\n", "0\n", "null\n", "", "\r\n", " a b \n", "{\"session_id\":\"x\"}",
		`{"sessionId":"y","timestamp":"2026-11-22T02:05:10+00:00"}`, `{"session_id":5}`, "{", "-x\n", "ses_abc\nmore",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := ParseIDFile(b)
		if err != nil {
			return
		}
		if got.ID != "" && !ValidID(got.ID) {
			t.Fatalf("ParseIDFile(%q) returned unusable id %q", b, got.ID)
		}
	})
}

// Whatever .ralph_session holds, decoding never panics and an accepted
// active session has a past, parseable created_at.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		`{"session_id":"x","created_at":"2026-11-22T00:00:00+00:00","last_used":"2026-11-22T00:00:00+00:00"}`,
		`{"session_id":"","reset_at":"x","reset_reason":"y"}`, `{"session_id":null}`, `[]`, `null`, ``, `{`,
		`{"session_id":"x","created_at":"2099-01-01T00:00:00Z"}`, `{"session_id":"x","created_at":5}`,
	} {
		f.Add([]byte(s))
	}
	now := time.Date(2026, 11, 22, 2, 5, 10, 0, time.UTC)
	f.Fuzz(func(t *testing.T, b []byte) {
		rs, err := Decode(b, now)
		if err != nil || rs.SessionID == "" {
			return
		}
		c, ok := parseISO(rs.CreatedAt)
		if !ok || c.After(now) {
			t.Fatalf("accepted active session with created_at %q", rs.CreatedAt)
		}
	})
}
