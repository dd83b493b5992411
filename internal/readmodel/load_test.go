//go:build unix

package readmodel

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ralphloop/ralph_loop/internal/events"
	"github.com/ralphloop/ralph_loop/internal/ralphdir"
)

func writeFiles(t *testing.T, root string, files map[string]string) *ralphdir.Dir {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(root, ".ralph", name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return ralphdir.New(filepath.Join(root, ".ralph"), func(string) {})
}

// A loop waiting for its rate limit says what for and until when; the
// last event is found in the tail of the event log.
func TestStatusWaiting(t *testing.T) {
	until := time.Date(2026, 1, 1, 14, 0, 0, 0, time.UTC)
	ev, _ := json.Marshal(events.Event{Type: events.RateLimited, TS: until.Add(-time.Hour), Wait: "rate_limit", Until: &until})
	d := writeFiles(t, t.TempDir(), map[string]string{
		ralphdir.EventsLog: "not json\n" + string(ev) + "\n",
		ralphdir.Status:    `{"loop_count":3,"status":"running","max_calls_per_hour":5,"input_tokens_total":10,"cost_usd_total":0.5}`,
		ralphdir.CallCount: "5\n",
		".last_reset":      "2026010113\n",
	})
	v := &View{State: state{Running: true}, Status: json.RawMessage(`{}`)}
	last := lastEvents(tailLogs(d, []string{ralphdir.EventsLog}, statusTail), 1)
	if got := phase(v, statusFile{}, &last[0], until); got != "waiting" || v.State.WaitingFor != "rate_limit" || !v.State.Until.Equal(until) {
		t.Fatalf("phase = %q, waiting for %q until %v", got, v.State.WaitingFor, v.State.Until)
	}
	now := time.Date(2026, 1, 1, 13, 30, 0, 0, time.Local)
	full := Load(d, 100, now)
	if full.Calls.ThisHour != 5 || full.Calls.Max != 5 || full.Totals.InputTokens != 10 || full.Progress.Loop != 3 {
		t.Fatalf("view = %+v calls %+v totals %+v", full, full.Calls, full.Totals)
	}
	if next := Load(d, 100, now.Add(time.Hour)); next.Calls.ThisHour != 0 {
		t.Fatalf("an earlier hour's count should read as 0, got %d", next.Calls.ThisHour)
	}
	var b bytes.Buffer
	v.State.Phase, v.Progress.Loop = "waiting", 3
	v.WriteSummary(&b)
	if !strings.Contains(b.String(), "waiting for rate_limit until "+until.Local().Format("15:04:05")+", loop 3") {
		t.Fatalf("summary:\n%s", b.String())
	}
}

// Damaged or hostile files leave their part out; nothing is moved aside.
func TestStatusDamagedFiles(t *testing.T) {
	root := t.TempDir()
	d := writeFiles(t, root, map[string]string{
		ralphdir.Status:              "{broken",
		ralphdir.CircuitBreakerState: "[]",
		".ralph_session":             "nope",
		ralphdir.CallCount:           "lots",
		ralphdir.ResponseAnalysis:    "{",
	})
	if err := os.Symlink("/etc/passwd", filepath.Join(root, ".ralph", ralphdir.FixPlan)); err != nil {
		t.Fatal(err)
	}
	v := Load(d, 7, time.Now())
	if v.Status != nil || v.Breaker != nil || v.Session != nil || v.Totals != nil || v.Calls.ThisHour != 0 || v.Calls.Max != 7 ||
		v.State.Phase != "stopped" || v.State.Reason != "no loop is running; status.json cannot be read" {
		t.Fatalf("view = %+v", v)
	}
	entries, _ := os.ReadDir(filepath.Join(root, ".ralph"))
	if len(entries) != 6 {
		t.Fatalf("--status changed .ralph/: %d entries", len(entries))
	}
}

// A status.json that says running with no loop holding the lock is a loop
// that was killed: stopped, and the summary says so.
func TestStatusKilledLoop(t *testing.T) {
	d := writeFiles(t, t.TempDir(), map[string]string{
		ralphdir.Status:   `{"loop_count":7,"status":"running","exit_reason":""}`,
		ralphdir.LockFile: "12345\n",
	})
	v := Load(d, 100, time.Now())
	if v.State.Phase != "stopped" || v.State.Running || v.State.Reason != "no loop is running; status.json last said running" {
		t.Fatalf("state = %+v", v.State)
	}
}

// --status reads the kept state as the loop does (the store's Peek): a
// session the loop would discard (no created_at, or one in the future) is
// no session, and a breaker is shown only when its file holds one.
func TestStatusReadsKeptStateAsTheLoopDoes(t *testing.T) {
	now := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, tc := range []struct {
		name, session, breaker string
		wantSession            bool
		wantBreaker            bool
	}{
		{"valid", `{"session_id": "s-1", "created_at": "2030-01-01T00:00:00+00:00"}`, `{"state": "OPEN"}`, true, true},
		{"no created_at", `{"session_id": "s-1"}`, `{"state": "CLOSED"}`, false, true},
		{"created in the future", `{"session_id": "s-1", "created_at": "2031-01-01T00:00:00+00:00"}`, `{"state": "AJAR"}`, false, false},
		{"inactive", `{"session_id": "", "reset_at": "2030-01-01T00:00:00+00:00"}`, ``, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := map[string]string{".ralph_session": tc.session}
			if tc.breaker != "" {
				files[ralphdir.CircuitBreakerState] = tc.breaker
			}
			v := Load(writeFiles(t, t.TempDir(), files), 100, now)
			if (v.Session != nil) != tc.wantSession || (v.Breaker != nil) != tc.wantBreaker {
				t.Errorf("session %+v, breaker %+v; want a session %v, a breaker %v", v.Session, v.Breaker, tc.wantSession, tc.wantBreaker)
			}
		})
	}
}

// A loop waiting for the person's answer: the phase waiting_for_answer,
// the question from status.json (no call shown running, though the last
// event of the log is the asking call's start), and the summary's
// Question and Answer lines with the question's escapes made visible.
func TestStatusWaitingForAnswer(t *testing.T) {
	until := time.Date(2026, 1, 1, 14, 0, 0, 0, time.UTC)
	ev, _ := json.Marshal(events.Event{Type: events.IterationStarted, TS: until.Add(-time.Hour)})
	q := events.Question{Text: "Keep \x1b]0;x\x07 it?", Loop: 2, Until: &until}
	st, _ := json.Marshal(map[string]any{"loop_count": 2, "status": "paused", "last_action": "waiting_for_answer", "question": q})
	d := writeFiles(t, t.TempDir(), map[string]string{ralphdir.EventsLog: string(ev) + "\n", ralphdir.Status: string(st)})
	var sf statusFile
	json.Unmarshal(st, &sf)
	v := &View{State: state{Running: true, PID: 42}, StatusFound: true}
	last := lastEvents(tailLogs(d, []string{ralphdir.EventsLog}, statusTail), 1)
	if got := phase(v, sf, &last[0], until.Add(-time.Minute)); got != "waiting_for_answer" || v.State.Question == nil || v.Progress.CallRunning || !v.State.Until.Equal(until) {
		t.Fatalf("phase = %q, question %+v, call running %v", got, v.State.Question, v.Progress.CallRunning)
	}
	v.State.Phase, v.Progress.Loop = "waiting_for_answer", 2
	v.State.Question.AnswerFile = "/c/q.answer"
	var b bytes.Buffer
	v.WriteSummary(&b)
	for _, want := range []string{
		"  State:     waiting for answer (pid 42) until " + until.Local().Format("15:04:05") + ", loop 2\n",
		"  Question:  \"Keep \\u001b]0;x\\u0007 it?\" (the agent asked in loop 2)\n",
		"  Answer:    ralph_loop --answer \"YOUR ANSWER\" here, or the dashboard's answer form, or write the answer to /c/q.answer\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, b.String())
		}
	}
	// Stopped, the loop's status.json keeps no question: the phase says stopped.
	sf.LastAction = "question_unanswered"
	v = &View{State: state{}, StatusFound: true}
	if got := phase(v, sf, nil, until); got != "stopped" || v.State.Question != nil {
		t.Errorf("stopped: phase %q, question %+v", got, v.State.Question)
	}
}
