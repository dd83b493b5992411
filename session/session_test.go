package session

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func TestValidID(t *testing.T) {
	good := []string{
		"sess-abc", "sess-old", "a", "7",
		"3f1e2d4c-5b6a-4789-8abc-def012345678", // Claude / Cursor UUID
		"0199a213-81c0-7800-8aa1-bbab2a035a53", // Codex thread id (UUIDv7)
		"codex-thread-123", "cursor-session-123", "opencode-session-123",
		"ses_4a3f9c2e1ffeR0aXbQk2mZ7tYd", // OpenCode
		"ralph-1795313110-4242", "session-xyz-789",
		"thread:abc/def@host+x=y.z_w",
		strings.Repeat("a", maxIDLen),
	}
	bad := []string{
		"", "0", "00", "0000", "00000000-0000-0000-0000-000000000000",
		"null", "NULL", "Null", "undefined", "none", "nil",
		" sess", "sess ", "sess abc", "sess\tabc", "sess\nabc", "sess\r", "sess\x00", "sess\x1b[31m",
		"-resume", "--continue", "_x", ".x", "/etc/passwd",
		"séance", "sess—abc", "a;b", "$(id)", "`id`", "a\"b", "a'b", "a\\b", "a|b", "a*b",
		strings.Repeat("a", maxIDLen+1),
	}
	for _, id := range good {
		if !ValidID(id) {
			t.Errorf("ValidID(%q) = false, want true", id)
		}
	}
	for _, id := range bad {
		if ValidID(id) {
			t.Errorf("ValidID(%q) = true, want false", id)
		}
	}
}

func TestISO(t *testing.T) {
	if got := formatISO(time.Date(2026, 11, 22, 3, 5, 10, 999, time.FixedZone("X", 3600))); got != "2026-11-22T02:05:10+00:00" {
		t.Errorf("formatISO = %q", got)
	}
	want := time.Date(2026, 11, 22, 2, 5, 10, 0, time.UTC)
	for _, s := range []string{
		"2026-11-22T02:05:10+00:00", "2026-11-22T02:05:10Z", "2026-11-22T03:05:10+01:00",
		"2026-11-22T02:05:10.000Z", "2026-11-22T02:05:10+0000", "2026-11-22T02:05:10",
		"2026-11-22 02:05:10", " 2026-11-22T02:05:10+00:00\n",
	} {
		got, ok := parseISO(s)
		if !ok || !got.Equal(want) {
			t.Errorf("ParseISO(%q) = %v, %v", s, got, ok)
		}
	}
	for _, s := range []string{"", "null", "yesterday", "2026-13-01T00:00:00Z", "1763777110"} {
		if _, ok := parseISO(s); ok {
			t.Errorf("ParseISO(%q) accepted", s)
		}
	}
}

// A session's age is the largest of what is known of it: the time since
// its file was written, a legacy file's timestamp, and created_at of the
// active .ralph_session with the same id.
func TestIDFileAge(t *testing.T) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	h := time.Hour
	active := RalphSession{SessionID: "sess-a", CreatedAt: formatISO(now.Add(-30 * h))}
	for _, tc := range []struct {
		name   string
		f      IDFile
		active RalphSession
		want   time.Duration
	}{
		{"written only", IDFile{ID: "sess-a"}, RalphSession{}, 2 * h},
		{"legacy timestamp older", IDFile{ID: "sess-a", Stamp: now.Add(-5 * h), HasStamp: true}, RalphSession{}, 5 * h},
		{"created_at of the same session", IDFile{ID: "sess-a"}, active, 30 * h},
		{"created_at of another session", IDFile{ID: "sess-b"}, active, 2 * h},
		{"no id", IDFile{}, RalphSession{CreatedAt: active.CreatedAt}, 2 * h},
	} {
		if got := tc.f.Age(now.Add(-2*h), tc.active, now); got != tc.want {
			t.Errorf("%s: Age = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// A reset's history entry is appended in the bash loop's shape; entries
// already there stay byte for byte, and only the last 50 are kept.
func TestAppendHistory(t *testing.T) {
	now := time.Date(2026, 11, 22, 2, 5, 10, 0, time.UTC)
	h, err := AppendHistory([]json.RawMessage{json.RawMessage(`"odd"`)}, "project_complete", 3, now)
	if err != nil {
		t.Fatal(err)
	}
	want := `"odd"|{"timestamp":"2026-11-22T02:05:10+00:00","from_state":"active","to_state":"reset","reason":"project_complete","loop_number":3}`
	if len(h) != 2 || string(h[0])+"|"+string(h[1]) != want {
		t.Errorf("history = %s\nwant      %s", h, want)
	}
	for i := range 60 {
		if h, err = AppendHistory(h, "r", i, now); err != nil {
			t.Fatal(err)
		}
	}
	if len(h) != 50 || !bytes.Contains(h[0], []byte(`"loop_number":10}`)) || !bytes.Contains(h[49], []byte(`"loop_number":59}`)) {
		t.Errorf("after 62 entries: %d kept, first %s, last %s; want 50, loops 10 to 59", len(h), h[0], h[len(h)-1])
	}
}
