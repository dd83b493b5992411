package store

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/ralphloop/ralph_loop/internal/events"
	"github.com/ralphloop/ralph_loop/internal/ralphdir"
	"github.com/ralphloop/ralph_loop/session"
)

var sesT0 = time.Date(2026, 11, 22, 2, 5, 10, 0, time.UTC)

type rig struct {
	s        *sessions
	d        *ralphdir.Dir
	logs     []string // "LEVEL msg"
	warnings []string // ralphdir quarantine warnings
}

func newRig(t *testing.T) *rig {
	t.Helper()
	r := &rig{}
	r.d = ralphdir.New(filepath.Join(t.TempDir(), ".ralph"), func(m string) { r.warnings = append(r.warnings, m) })
	if err := r.d.EnsureLayout(); err != nil {
		t.Fatal(err)
	}
	r.s = newSessions(r.d, func(level, msg string) { r.logs = append(r.logs, level+" "+msg) })
	r.s.randN = func(int) int { return 4242 }
	return r
}

func (r *rig) write(t *testing.T, name, content string) {
	t.Helper()
	if err := os.WriteFile(r.d.Path(name), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func (r *rig) read(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(r.d.Path(name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func (r *rig) setMtime(t *testing.T, name string, mt time.Time) {
	t.Helper()
	if err := os.Chtimes(r.d.Path(name), mt, mt); err != nil {
		t.Fatal(err)
	}
}

func (r *rig) quarantined(name string) int {
	m, _ := filepath.Glob(r.d.Path(name) + ".corrupt-*")
	return len(m)
}

func activeJSON(id string, created, used time.Time) string {
	return fmt.Sprintf("{\n  \"session_id\": %q,\n  \"created_at\": %q,\n  \"last_used\": %q\n}\n", id, events.ISOTime(created), events.ISOTime(used))
}

func TestSessionResumeID(t *testing.T) {
	h := time.Hour
	tests := []struct {
		name      string
		content   *string       // .claude_session_id; nil = absent
		age       time.Duration // its mtime is sesT0 - age
		ralph     string        // .ralph_session content, "" = absent
		expiry    time.Duration
		wantID    string
		wantLog   string
		warnings  int  // quarantine warnings
		wantKept  bool // .claude_session_id still there afterwards
		wantQuar  bool // .claude_session_id moved aside
		wantLevel string
	}{
		{name: "no file", expiry: 24 * h, wantLog: "INFO Starting new session"},
		{name: "fresh id", content: sp("sess-old\n"), age: h, expiry: 24 * h,
			wantID: "sess-old", wantLog: "INFO Resuming session: sess-old... (1h old)", wantKept: true},
		{name: "25h old", content: sp("sess-old\n"), age: 25 * h, expiry: 24 * h,
			wantLog: "INFO Session expired (25h old, max 24h), starting new session"},
		{name: "exactly 24h is expired", content: sp("sess-old\n"), age: 24 * h, expiry: 24 * h,
			wantLog: "INFO Session expired (24h old, max 24h), starting new session"},
		{name: "23h59m is resumed", content: sp("sess-old\n"), age: 23*h + 59*time.Minute, expiry: 24 * h,
			wantID: "sess-old", wantLog: "INFO Resuming session: sess-old... (23h old)", wantKept: true},
		{name: "3h old, expiry 2h", content: sp("sess-3h\n"), age: 3 * h, expiry: 2 * h,
			wantLog: "INFO Session expired (3h old, max 2h), starting new session"},
		{name: "3h old, expiry 48h", content: sp("sess-3h\n"), age: 3 * h, expiry: 48 * h,
			wantID: "sess-3h", wantLog: "INFO Resuming session: sess-3h... (3h old)", wantKept: true},
		{name: "mtime in the future", content: sp("sess-x\n"), age: -h, expiry: 24 * h,
			wantID: "sess-x", wantLog: "INFO Resuming session: sess-x... (0h old)", wantKept: true},
		{name: "log shows 20 chars", content: sp("3f1e2d4c-5b6a-4789-8abc-def012345678\n"), age: 0, expiry: 24 * h,
			wantID: "3f1e2d4c-5b6a-4789-8abc-def012345678", wantLog: "INFO Resuming session: 3f1e2d4c-5b6a-4789-8... (0h old)", wantKept: true},
		{name: "crlf and blanks trimmed", content: sp("  sess-abc \r\nsecond line\n"), age: h, expiry: 24 * h,
			wantID: "sess-abc", wantLog: "INFO Resuming session: sess-abc... (1h old)", wantKept: true},
		{name: "empty file", content: sp(""), age: h, expiry: 24 * h,
			wantLog: "INFO Starting new session", wantKept: true},
		{name: "zero id is never resumed", content: sp("0\n"), age: h, expiry: 24 * h,
			wantLog: "INFO Starting new session", warnings: 1, wantQuar: true},
		{name: "null id is never resumed", content: sp("null\n"), age: h, expiry: 24 * h,
			wantLog: "INFO Starting new session", warnings: 1, wantQuar: true},
		{name: "id with a space", content: sp("sess abc\n"), age: h, expiry: 24 * h,
			wantLog: "INFO Starting new session", warnings: 1, wantQuar: true},
		{name: "id looking like a flag", content: sp("--dangerously-skip-permissions\n"), age: h, expiry: 24 * h,
			wantLog: "INFO Starting new session", warnings: 1, wantQuar: true},
		{name: "broken JSON", content: sp(`{"session_id": "sess`), age: h, expiry: 24 * h,
			wantLog: "INFO Starting new session", warnings: 1, wantQuar: true},
		{name: "legacy JSON session_id", content: sp(`{"session_id": "sess-json"}`), age: h, expiry: 24 * h,
			wantID: "sess-json", wantLog: "INFO Resuming session: sess-json... (1h old)", wantKept: true},
		{name: "legacy JSON sessionId", content: sp(`{"sessionId": "sess-camel"}`), age: h, expiry: 24 * h,
			wantID: "sess-camel", wantLog: "INFO Resuming session: sess-camel... (1h old)", wantKept: true},
		{name: "legacy JSON null id", content: sp(`{"session_id": null}`), age: h, expiry: 24 * h,
			wantLog: "INFO Starting new session", wantKept: true},
		{name: "legacy JSON old timestamp expires a fresh file", content: sp(`{"session_id": "sess-json", "timestamp": "` + events.ISOTime(sesT0.Add(-25*h)) + `"}`), age: 0, expiry: 24 * h,
			wantLog: "INFO Session expired (25h old, max 24h), starting new session"},
		{name: "legacy JSON bad timestamp falls back to mtime", content: sp(`{"session_id": "sess-json", "timestamp": "soon"}`), age: 2 * h, expiry: 24 * h,
			wantID: "sess-json", wantLog: "INFO Resuming session: sess-json... (2h old)", wantKept: true},
		{name: "created_at of the same session counts", content: sp("sess-abc\n"), age: h,
			ralph: activeJSON("sess-abc", sesT0.Add(-30*h), sesT0.Add(-h)), expiry: 24 * h,
			wantLog: "INFO Session expired (30h old, max 24h), starting new session"},
		{name: "created_at of the same session, within expiry", content: sp("sess-abc\n"), age: h,
			ralph: activeJSON("sess-abc", sesT0.Add(-5*h), sesT0.Add(-h)), expiry: 24 * h,
			wantID: "sess-abc", wantLog: "INFO Resuming session: sess-abc... (5h old)", wantKept: true},
		{name: "created_at of another session is ignored", content: sp("sess-abc\n"), age: h,
			ralph: activeJSON("ralph-1-2", sesT0.Add(-30*h), sesT0.Add(-h)), expiry: 24 * h,
			wantID: "sess-abc", wantLog: "INFO Resuming session: sess-abc... (1h old)", wantKept: true},
		{name: "inactive ralph session is ignored", content: sp("sess-abc\n"), age: h,
			ralph: `{"session_id": "", "reset_at": "2001-01-01T00:00:00+00:00", "reset_reason": "manual_reset"}`, expiry: 24 * h,
			wantID: "sess-abc", wantLog: "INFO Resuming session: sess-abc... (1h old)", wantKept: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t)
			if tc.content != nil {
				r.write(t, claudeSessionID, *tc.content)
				r.setMtime(t, claudeSessionID, sesT0.Add(-tc.age))
			}
			if tc.ralph != "" {
				r.write(t, ralphSession, tc.ralph)
			}
			id, err := r.s.resumeID(sesT0, tc.expiry)
			if err != nil {
				t.Fatal(err)
			}
			if id != tc.wantID {
				t.Errorf("id = %q, want %q", id, tc.wantID)
			}
			if diff := cmp.Diff([]string{tc.wantLog}, r.logs); diff != "" {
				t.Errorf("logs (-want +got):\n%s", diff)
			}
			if len(r.warnings) != tc.warnings {
				t.Errorf("warnings = %q, want %d", r.warnings, tc.warnings)
			}
			if tc.content != nil && r.d.Exists(claudeSessionID) != tc.wantKept {
				t.Errorf(".claude_session_id exists = %v, want %v", !tc.wantKept, tc.wantKept)
			}
			if q := r.quarantined(claudeSessionID); (q == 1) != tc.wantQuar {
				t.Errorf("quarantined copies = %d, want quarantined %v", q, tc.wantQuar)
			}
		})
	}
}

func TestSessionSaveID(t *testing.T) {
	r := newRig(t)
	if err := r.s.saveID("sess-abc", sesT0); err != nil {
		t.Fatal(err)
	}
	if got := r.read(t, claudeSessionID); got != "sess-abc\n" {
		t.Errorf(".claude_session_id = %q", got)
	}
	if got := r.read(t, ralphSession); got != activeJSON("sess-abc", sesT0, sesT0) {
		t.Errorf(".ralph_session = %q", got)
	}

	// The same id later (a resumed call handing back the id it resumed):
	// created_at kept, last_used moves, the id file is left as it is and
	// nothing is logged.
	r.setMtime(t, claudeSessionID, sesT0)
	t1 := sesT0.Add(10 * time.Minute)
	if err := r.s.saveID("  sess-abc\n", t1); err != nil {
		t.Fatal(err)
	}
	if got := r.read(t, ralphSession); got != activeJSON("sess-abc", sesT0, t1) {
		t.Errorf("same id: .ralph_session = %q", got)
	}
	if fi, err := os.Stat(r.d.Path(claudeSessionID)); err != nil || !fi.ModTime().Equal(sesT0) {
		t.Errorf("same id: .claude_session_id rewritten (%v, %v)", fi.ModTime(), err)
	}

	// Ids session.ValidID rejects and empty ids change nothing.
	for _, bad := range []string{"0", "null", "sess abc", "", "   "} {
		if err := r.s.saveID(bad, t1.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
	}
	if got := r.read(t, claudeSessionID); got != "sess-abc\n" {
		t.Errorf("after invalid ids .claude_session_id = %q", got)
	}
	if got := r.read(t, ralphSession); got != activeJSON("sess-abc", sesT0, t1) {
		t.Errorf("after invalid ids .ralph_session = %q", got)
	}

	// A new id: a new created_at.
	t2 := t1.Add(time.Hour)
	long := "0199a213-81c0-7800-8aa1-bbab2a035a53"
	if err := r.s.saveID(long, t2); err != nil {
		t.Fatal(err)
	}
	if got := r.read(t, ralphSession); got != activeJSON(long, t2, t2) {
		t.Errorf("new id: .ralph_session = %q", got)
	}

	// The same id in the legacy JSON form: rewritten as the id alone, not
	// logged (the id did not change).
	r.write(t, claudeSessionID, `{"session_id":"sess-abc","timestamp":"2026-01-01T00:00:00Z"}`)
	if err := r.s.saveID("sess-abc", t1); err != nil {
		t.Fatal(err)
	}
	if got := r.read(t, claudeSessionID); got != "sess-abc\n" {
		t.Errorf("same id over the legacy form: .claude_session_id = %q", got)
	}

	want := []string{
		"INFO Saved session: sess-abc...",
		`WARN Ignoring invalid session id "0" from the agent's output; keeping the previous session`,
		`WARN Ignoring invalid session id "null" from the agent's output; keeping the previous session`,
		`WARN Ignoring invalid session id "sess abc" from the agent's output; keeping the previous session`,
		"INFO Saved session: 0199a213-81c0-7800-8...",
	}
	if diff := cmp.Diff(want, r.logs); diff != "" {
		t.Errorf("logs (-want +got):\n%s", diff)
	}
}

func TestSessionStart(t *testing.T) {
	created := sesT0.Add(-2 * time.Hour)
	tests := []struct {
		name     string
		file     string // "" = absent
		wantKept bool   // the file is left byte for byte
		wantWarn bool   // invalid: quarantined + "Corrupted session file detected"
	}{
		{name: "missing"},
		{name: "active from an earlier run", file: activeJSON("sess-abc", created, created), wantKept: true},
		{name: "active compact, extra fields", file: `{"session_id":"x","created_at":"2026-11-22T00:00:00Z","other":1}`, wantKept: true},
		{name: "active without last_used", file: `{"session_id":"x","created_at":"2026-11-22T00:00:00+00:00"}`, wantKept: true},
		{name: "inactive", file: `{"session_id": "", "reset_at": "2026-11-21T00:00:00+00:00", "reset_reason": "project_complete"}`},
		{name: "inactive legacy without reset fields", file: `{"session_id": ""}`},
		{name: "not JSON", file: "garbage", wantWarn: true},
		{name: "empty", file: "", wantWarn: true},
		{name: "array", file: "[]", wantWarn: true},
		{name: "null", file: "null", wantWarn: true},
		{name: "session_id missing", file: `{"created_at": "2026-11-22T00:00:00+00:00"}`, wantWarn: true},
		{name: "session_id a number", file: `{"session_id": 5, "created_at": "2026-11-22T00:00:00+00:00"}`, wantWarn: true},
		{name: "session_id null", file: `{"session_id": null}`, wantWarn: true},
		{name: "created_at missing", file: `{"session_id": "x"}`, wantWarn: true},
		{name: "created_at a number", file: `{"session_id": "x", "created_at": 1763777110}`, wantWarn: true},
		{name: "created_at unparseable", file: `{"session_id": "x", "created_at": "yesterday"}`, wantWarn: true},
		{name: "created_at in the future", file: activeJSON("x", sesT0.Add(time.Minute), sesT0), wantWarn: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t)
			if tc.name != "missing" {
				r.write(t, ralphSession, tc.file)
			}
			rs, err := r.s.start(sesT0)
			if err != nil {
				t.Fatal(err)
			}
			got := r.read(t, ralphSession)
			if tc.wantKept {
				if got != tc.file {
					t.Errorf("active file rewritten: %q", got)
				}
				if len(r.logs) != 0 {
					t.Errorf("logs %q", r.logs)
				}
				return
			}
			if want := activeJSON("ralph-1795313110-4242", sesT0, sesT0); got != want {
				t.Errorf(".ralph_session = %q, want %q", got, want)
			}
			if rs.SessionID != "ralph-1795313110-4242" {
				t.Errorf("returned %+v", rs)
			}
			var want []string
			if tc.wantWarn {
				want = append(want, "WARN Corrupted session file detected, recreating...")
				if len(r.warnings) != 1 || r.quarantined(ralphSession) != 1 {
					t.Errorf("not quarantined: warnings %q", r.warnings)
				}
			}
			want = append(want, "INFO Initialized session tracking (session: ralph-1795313110-4242)")
			if diff := cmp.Diff(want, r.logs); diff != "" {
				t.Errorf("logs (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSessionTouch(t *testing.T) {
	r := newRig(t)
	// A timestamp in another accepted form is kept as written.
	r.write(t, ralphSession, `{"session_id":"sess-abc","created_at":"2026-11-22T00:00:00Z","last_used":"2026-11-22T00:00:00Z"}`)
	if err := r.s.touch(sesT0); err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"session_id\": \"sess-abc\",\n  \"created_at\": \"2026-11-22T00:00:00Z\",\n  \"last_used\": \"2026-11-22T02:05:10+00:00\"\n}\n"
	if got := r.read(t, ralphSession); got != want {
		t.Errorf("got %q, want %q", got, want)
	}

	inactive := `{"session_id": "", "reset_at": "2026-11-21T00:00:00+00:00", "reset_reason": "x"}`
	r.write(t, ralphSession, inactive)
	if err := r.s.touch(sesT0); err != nil {
		t.Fatal(err)
	}
	if got := r.read(t, ralphSession); got != inactive {
		t.Errorf("inactive file changed: %q", got)
	}

	r.d.Remove(ralphSession)
	if err := r.s.touch(sesT0); err != nil || r.d.Exists(ralphSession) {
		t.Errorf("Touch without a file: err %v, created %v", err, r.d.Exists(ralphSession))
	}
}

// The cli-reset-session scenario: --reset-session with a live session,
// exit signals and a response analysis.
func TestSessionResetSessionFlag(t *testing.T) {
	r := newRig(t)
	r.write(t, ralphSession, activeJSON("sess-live", sesT0.Add(-time.Hour), sesT0))
	r.write(t, claudeSessionID, "sess-live\n")
	r.write(t, exitSignals, `{"test_only_loops":[1],"done_signals":[2,3],"completion_indicators":[3]}`+"\n")
	r.write(t, ralphdir.ResponseAnalysis, `{"loop_number":3,"analysis":{"exit_signal":true}}`+"\n")

	if err := r.s.reset(session.ReasonManualResetFlag, 0, sesT0); err != nil {
		t.Fatal(err)
	}
	wantSession := "{\n  \"session_id\": \"\",\n  \"reset_at\": \"2026-11-22T02:05:10+00:00\",\n  \"reset_reason\": \"manual_reset_flag\"\n}\n"
	if got := r.read(t, ralphSession); got != wantSession {
		t.Errorf(".ralph_session = %q, want %q", got, wantSession)
	}
	if r.d.Exists(claudeSessionID) || r.d.Exists(ralphdir.ResponseAnalysis) {
		t.Error(".claude_session_id or .response_analysis still there")
	}
	if got := r.read(t, exitSignals); got != `{"test_only_loops": [], "done_signals": [], "completion_indicators": []}`+"\n" {
		t.Errorf(".exit_signals = %q", got)
	}
	wantHist := "[\n  {\n    \"timestamp\": \"2026-11-22T02:05:10+00:00\",\n    \"from_state\": \"active\",\n    \"to_state\": \"reset\",\n    \"reason\": \"manual_reset_flag\",\n    \"loop_number\": 0\n  }\n]\n"
	if got := r.read(t, ralphSessionHistory); got != wantHist {
		t.Errorf("history = %q, want %q", got, wantHist)
	}
	if diff := cmp.Diff([]string{"INFO Session reset: manual_reset_flag"}, r.logs); diff != "" {
		t.Errorf("logs (-want +got):\n%s", diff)
	}
	rs, corrupt, err := r.s.current(sesT0)
	if err != nil || corrupt || rs.SessionID != "" || rs.ResetReason != "manual_reset_flag" {
		t.Errorf("session %+v corrupt %v err %v, want inactive", rs, corrupt, err)
	}
}

// TestResetWithoutExitSignals: a reset does not create a missing .exit_signals.
func TestSessionResetWithoutExitSignals(t *testing.T) {
	r := newRig(t)
	if err := r.s.reset("circuit_breaker_open", 4, sesT0); err != nil {
		t.Fatal(err)
	}
	if r.d.Exists(exitSignals) {
		t.Error(".exit_signals created")
	}
	h, err := r.s.history()
	if err != nil || len(h) != 1 || h[0].LoopNumber != 4 || h[0].Reason != "circuit_breaker_open" {
		t.Errorf("history %+v err %v", h, err)
	}
}

// TestResetEmptyReason: empty reason is manual_reset.
func TestSessionResetEmptyReason(t *testing.T) {
	r := newRig(t)
	if err := r.s.reset("", 0, sesT0); err != nil {
		t.Fatal(err)
	}
	rs, _, _ := r.s.current(sesT0)
	if rs.ResetReason != session.ReasonManualReset || r.logs[0] != "INFO Session reset: manual_reset" {
		t.Errorf("%+v %q", rs, r.logs)
	}
}

// TestResetVerboseLogsClearedSignals: verbose logs the cleared exit signals.
func TestSessionResetVerboseLogsClearedSignals(t *testing.T) {
	r := newRig(t)
	r.s.verbose = true
	r.write(t, exitSignals, "{}")
	if err := r.s.reset("manual_interrupt", 2, sesT0); err != nil {
		t.Fatal(err)
	}
	want := []string{"INFO Cleared exit signals file", "INFO Session reset: manual_interrupt"}
	if diff := cmp.Diff(want, r.logs); diff != "" {
		t.Errorf("logs (-want +got):\n%s", diff)
	}
}

// TestResetQuarantinesCorruptHistory: corrupt history is quarantined and restarted.
func TestSessionResetQuarantinesCorruptHistory(t *testing.T) {
	r := newRig(t)
	r.write(t, ralphSessionHistory, `{"not": "an array"}`)
	if err := r.s.reset("permission_denied", 7, sesT0); err != nil {
		t.Fatal(err)
	}
	h, _ := r.s.history()
	if len(h) != 1 || h[0].Reason != "permission_denied" || r.quarantined(ralphSessionHistory) != 1 || len(r.warnings) != 1 {
		t.Errorf("history %+v warnings %q", h, r.warnings)
	}
}

// TestResetMovesFolderHistoryAside: a folder in place of the history is moved aside.
func TestSessionResetMovesFolderHistoryAside(t *testing.T) {
	r := newRig(t)
	// Not a regular file: moved aside like a corrupt one, then the
	// reset is recorded in a fresh history.
	if err := os.Mkdir(r.d.Path(ralphSessionHistory), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := r.s.reset("project_complete", 1, sesT0); err != nil {
		t.Fatalf("Reset failed: %v", err)
	}
	if len(r.logs) != 1 || r.logs[0] != "INFO Session reset: project_complete" {
		t.Errorf("logs %q", r.logs)
	}
	if len(r.warnings) != 1 || !strings.Contains(r.warnings[0], "is a directory, not a regular file; moved it to .ralph_session_history.corrupt-") {
		t.Errorf("warnings %q", r.warnings)
	}
	if h, err := r.s.history(); err != nil || len(h) != 1 {
		t.Errorf("history %v %v", h, err)
	}
	if rs, corrupt, _ := r.s.current(sesT0); corrupt || rs.SessionID != "" || rs.ResetAt == "" {
		t.Errorf("session %+v corrupt %v, want inactive", rs, corrupt)
	}
}

func TestSessionHistoryCapAndForeignEntries(t *testing.T) {
	r := newRig(t)
	// Two entries written by someone else, one of an unknown shape.
	r.write(t, ralphSessionHistory, `[{"timestamp":"x","from_state":"active","to_state":"reset","reason":"old","loop_number":9}, "odd"]`)
	if err := r.s.reset("first", 0, sesT0); err != nil {
		t.Fatal(err)
	}
	var raw []json.RawMessage
	if err := json.Unmarshal([]byte(r.read(t, ralphSessionHistory)), &raw); err != nil || len(raw) != 3 || string(raw[1]) != `"odd"` {
		t.Fatalf("foreign entries not kept: %s", r.read(t, ralphSessionHistory))
	}
	for i := 1; i <= 55; i++ {
		if err := r.s.reset("r", i, sesT0.Add(time.Duration(i)*time.Second)); err != nil {
			t.Fatal(err)
		}
	}
	h, err := r.s.history()
	if err != nil {
		t.Fatal(err)
	}
	if len(h) != 50 || h[0].LoopNumber != 6 || h[len(h)-1].LoopNumber != 55 {
		t.Fatalf("len %d, first loop %d, last loop %d; want 50, 6, 55", len(h), h[0].LoopNumber, h[len(h)-1].LoopNumber)
	}
}

// The session-lifecycle and session-resume-next-call scenarios, as calls.
func TestSessionLifecycle(t *testing.T) {
	r := newRig(t)
	rs, err := r.s.start(sesT0)
	if err != nil || !regexp.MustCompile(`^ralph-[0-9]+-[0-9]+$`).MatchString(rs.SessionID) {
		t.Fatalf("Start = %+v, %v", rs, err)
	}
	// Loop 1: no id to resume, the call returns sess-abc.
	if err := r.s.touch(sesT0.Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	if id, _ := r.s.resumeID(sesT0.Add(time.Second), 24*time.Hour); id != "" {
		t.Fatalf("loop 1 resumes %q", id)
	}
	if err := r.s.saveID("sess-abc", sesT0.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	// Loop 2 resumes it; .ralph_session now carries the agent's id.
	if id, _ := r.s.resumeID(sesT0.Add(2*time.Minute), 24*time.Hour); id != "sess-abc" {
		t.Fatalf("loop 2 resumes %q", id)
	}
	cur, _, _ := r.s.current(sesT0.Add(2 * time.Minute))
	if cur.SessionID != "sess-abc" || cur.CreatedAt != events.ISOTime(sesT0.Add(time.Minute)) {
		t.Fatalf("after save: %+v", cur)
	}
	if err := r.s.reset("project_complete", 2, sesT0.Add(3*time.Minute)); err != nil {
		t.Fatal(err)
	}
	cur, _, _ = r.s.current(sesT0.Add(3 * time.Minute))
	if cur.SessionID != "" || cur.ResetReason != "project_complete" || cur.CreatedAt != "" || r.d.Exists(claudeSessionID) {
		t.Fatalf("after reset: %+v", cur)
	}
	wantHist := "[\n  {\n    \"timestamp\": \"2026-11-22T02:08:10+00:00\",\n    \"from_state\": \"active\",\n    \"to_state\": \"reset\",\n    \"reason\": \"project_complete\",\n    \"loop_number\": 2\n  }\n]\n"
	if got := r.read(t, ralphSessionHistory); got != wantHist {
		t.Fatalf("history = %q, want %q", got, wantHist)
	}
	// The next run starts a fresh ralph session.
	rs2, _ := r.s.start(sesT0.Add(time.Hour))
	if rs2.SessionID == "" || rs2.SessionID == "sess-abc" {
		t.Fatalf("next run: %+v", rs2)
	}
}

// A .ralph/ left by the bash loop (jq-formatted files, an active session
// with the agent's id, a history) is read and continued.
func TestSessionBashLeftDirContinued(t *testing.T) {
	r := newRig(t)
	r.write(t, ralphSession, `{
  "session_id": "3f1e2d4c-5b6a-4789-8abc-def012345678",
  "created_at": "2026-11-22T00:05:10+00:00",
  "last_used": "2026-11-22T01:55:00+00:00"
}
`)
	r.write(t, claudeSessionID, "3f1e2d4c-5b6a-4789-8abc-def012345678\n")
	r.setMtime(t, claudeSessionID, sesT0.Add(-10*time.Minute))
	hist := `[
  {
    "timestamp": "2026-11-21T20:00:00+00:00",
    "from_state": "active",
    "to_state": "reset",
    "reason": "project_complete",
    "loop_number": 12
  }
]
`
	r.write(t, ralphSessionHistory, hist)

	rs, err := r.s.start(sesT0)
	if err != nil || rs.SessionID != "3f1e2d4c-5b6a-4789-8abc-def012345678" {
		t.Fatalf("Start = %+v %v", rs, err)
	}
	if err := r.s.touch(sesT0); err != nil {
		t.Fatal(err)
	}
	id, err := r.s.resumeID(sesT0, 24*time.Hour)
	if err != nil || id != "3f1e2d4c-5b6a-4789-8abc-def012345678" {
		t.Fatalf("ResumeID = %q %v", id, err)
	}
	if r.logs[len(r.logs)-1] != "INFO Resuming session: 3f1e2d4c-5b6a-4789-8... (2h old)" {
		t.Errorf("log %q", r.logs[len(r.logs)-1])
	}
	if err := r.s.reset("circuit_breaker_open", 3, sesT0); err != nil {
		t.Fatal(err)
	}
	got := r.read(t, ralphSessionHistory)
	if !strings.HasPrefix(got, strings.TrimSuffix(hist, "\n]\n")) {
		t.Errorf("old history not kept verbatim:\n%s", got)
	}
	h, _ := r.s.history()
	if len(h) != 2 || h[0].LoopNumber != 12 || h[1].Reason != "circuit_breaker_open" {
		t.Errorf("history %+v", h)
	}
	if len(r.warnings) != 0 {
		t.Errorf("warnings %q", r.warnings)
	}
}

func sp(s string) *string { return &s }

// historyEntry is what the tests check of a .ralph_session_history entry.
type historyEntry struct {
	Reason     string `json:"reason"`
	LoopNumber int    `json:"loop_number"`
}

// history reads .ralph_session_history back: the entries that have the
// entry shape, oldest first. A file that is not a JSON array is
// quarantined and reads as empty.
func (s *sessions) history() ([]historyEntry, error) {
	raw, err := s.readHistory()
	if err != nil {
		return nil, err
	}
	out := make([]historyEntry, 0, len(raw))
	for _, r := range raw {
		var e historyEntry
		if json.Unmarshal(r, &e) == nil {
			out = append(out, e)
		}
	}
	return out, nil
}

// The fallback driver's session lives in its own file: saved and resumed
// there, never mixed with .claude_session_id or .ralph_session, expired
// by its own age, and ended by a reset with the main one.
func TestSessionFallbackSession(t *testing.T) {
	r := newRig(t)
	if _, err := r.s.start(sesT0); err != nil {
		t.Fatal(err)
	}
	if err := r.s.saveID("claude-1", sesT0); err != nil {
		t.Fatal(err)
	}
	if id, err := r.s.fallbackResumeID("codex", sesT0, 24*time.Hour); id != "" || err != nil {
		t.Fatalf("no codex session yet: resume %q, %v", id, err)
	}
	if err := r.s.saveFallbackID("codex", "0199a213-aaaa", sesT0); err != nil {
		t.Fatal(err)
	}
	if err := r.s.saveFallbackID("codex", "null", sesT0); err != nil {
		t.Fatal(err)
	}
	if got := r.read(t, ".fallback_session_id.codex"); got != "0199a213-aaaa\n" {
		t.Fatalf("codex session file = %q", got)
	}
	if got := r.read(t, claudeSessionID); got != "claude-1\n" {
		t.Fatalf(".claude_session_id = %q, want the main driver's id untouched", got)
	}
	if cur, _, _ := r.s.current(sesT0); cur.SessionID != "claude-1" {
		t.Fatalf(".ralph_session follows %q, want the main driver's claude-1", cur.SessionID)
	}
	r.setMtime(t, ".fallback_session_id.codex", sesT0)
	if id, _ := r.s.fallbackResumeID("codex", sesT0.Add(time.Hour), 24*time.Hour); id != "0199a213-aaaa" {
		t.Fatalf("resume codex = %q", id)
	}
	if id, _ := r.s.resumeID(sesT0.Add(time.Hour), 24*time.Hour); id != "claude-1" {
		t.Fatalf("resume main = %q", id)
	}
	if id, _ := r.s.fallbackResumeID("opencode", sesT0.Add(time.Hour), 24*time.Hour); id != "" {
		t.Fatalf("another fallback driver resumes codex's id %q", id)
	}
	if id, _ := r.s.fallbackResumeID("codex", sesT0.Add(25*time.Hour), 24*time.Hour); id != "" {
		t.Fatalf("expired codex session resumed: %q", id)
	}
	if _, err := os.Stat(r.d.Path(".fallback_session_id.codex")); !os.IsNotExist(err) {
		t.Fatalf("expired codex session file kept: %v", err)
	}
	want := []string{
		"INFO Saved session: claude-1...",
		"INFO Starting new codex session",
		"INFO Saved codex session: 0199a213-aaaa...",
		`WARN Ignoring invalid codex session id "null" from the agent's output; keeping the previous session`,
		"INFO Resuming codex session: 0199a213-aaaa... (1h old)",
		"INFO Resuming session: claude-1... (1h old)",
		"INFO Starting new opencode session",
		"INFO codex session expired (25h old, max 24h), starting new session",
	}
	if d := cmp.Diff(want, r.logs[1:]); d != "" {
		t.Errorf("log lines (-want +got):\n%s", d)
	}

	r.write(t, ".fallback_session_id.cursor", "cur-1\n")
	r.write(t, ".fallback_session_id.codex.corrupt-20260101-100000", "x\n")
	if err := r.s.reset("manual_interrupt", 3, sesT0.Add(2*time.Hour)); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(r.d.Path(".fallback_session_id.cursor")); !os.IsNotExist(err) {
		t.Errorf("a reset kept the fallback session file: %v", err)
	}
	if r.quarantined(".fallback_session_id.codex") != 1 {
		t.Errorf("a reset removed a quarantined copy")
	}
}

func TestSessionNewRalphID(t *testing.T) {
	s := newSessions(nil, nil)
	re := regexp.MustCompile(`^ralph-1795313110-([0-9]+)$`)
	for i := 0; i < 200; i++ {
		id := s.newRalphID(sesT0)
		m := re.FindStringSubmatch(id)
		if m == nil {
			t.Fatalf("id %q does not match %s", id, re)
		}
		var n int
		fmt.Sscan(m[1], &n)
		if n < 0 || n > 32767 {
			t.Fatalf("random part %d out of 0..32767", n)
		}
	}
}
