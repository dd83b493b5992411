package report_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/ralphloop/ralph_loop/internal/events"
	"github.com/ralphloop/ralph_loop/internal/report"
)

var t0 = time.Date(2030, 3, 4, 5, 6, 7, 0, time.UTC)

// log writes event lines as the event log has them, with a clock that
// moves one second per event.
type log struct {
	buf   bytes.Buffer
	runID string
	clock time.Time
	snap  events.Snapshot
}

func newLog(runID string, start time.Time) *log {
	return &log{runID: runID, clock: start.Add(-time.Second)}
}

func (l *log) emit(e events.Event) {
	l.clock = l.clock.Add(time.Second)
	e.V, e.TS, e.RunID, e.Snapshot = events.SchemaVersion, l.clock, l.runID, l.snap
	b, err := json.Marshal(e)
	if err != nil {
		panic(err)
	}
	l.buf.Write(append(b, '\n'))
}

func (l *log) call(n int, typ events.Type, it *events.Iteration) {
	l.snap.Loop = n
	l.emit(events.Event{Type: events.IterationStarted, Action: "executing", Status: "running"})
	if it != nil && it.Usage != nil {
		l.snap.Totals = l.snap.Totals.Add(*it.Usage)
	}
	l.emit(events.Event{Type: typ, Iteration: it})
}

var (
	u1 = &events.Usage{InputTokens: 1200, OutputTokens: 340, CacheReadTokens: 5000, CacheCreationTokens: 200, CostUSD: 0.0123}
	u3 = &events.Usage{InputTokens: 10, OutputTokens: 1, CacheReadTokens: 2, CacheCreationTokens: 3, CostUSD: 0.0877}
)

// haltedRun: a success, a timeout with a failure backoff, then a call that
// trips the breaker; the run stops with stagnation_detected, exit 2.
func haltedRun(l *log) {
	l.emit(events.Event{Type: events.RunStarted, Driver: "codex", Version: "1.2.3"})
	l.call(1, events.IterationCompleted, &events.Iteration{Outcome: "success", WallMS: 2000, Usage: u1})
	l.call(2, events.IterationTimedOut, &events.Iteration{Outcome: "timeout", WallMS: 900000})
	l.emit(events.Event{Type: events.DelayStarted, Wait: "failure_backoff", DelaySecs: 30})
	l.emit(events.Event{Type: events.DelayEnded, Wait: "failure_backoff", DelaySecs: 30})
	l.snap.Loop = 3
	l.emit(events.Event{Type: events.BreakerChanged, From: "CLOSED", To: "HALF_OPEN", Reason: "no progress in 2 loops"})
	l.call(3, events.IterationCompleted, &events.Iteration{Outcome: "circuit_breaker_trip", WallMS: 1500, Usage: u3})
	l.emit(events.Event{Type: events.BreakerChanged, From: "HALF_OPEN", To: "OPEN", Reason: "no progress in 3 loops"})
	l.emit(events.Event{Type: events.RunFinished, Action: "circuit_breaker_open", Status: "halted", Reason: "stagnation_detected", ExitCode: new(2)})
}

func TestReadRebuildsRun(t *testing.T) {
	l := newLog("2030-03-04T05:06:07+00:00", t0)
	haltedRun(l)
	runs, err := report.Read(&l.buf)
	if err != nil {
		t.Fatal(err)
	}
	want := []*report.Summary{{
		RunID: "2030-03-04T05:06:07+00:00", Driver: "codex",
		Started: t0, Ended: t0.Add(11 * time.Second), Finished: true,
		ExitReason: "stagnation_detected", ExitCode: new(2), Status: "halted",
		Loops: []report.Loop{
			{Loop: 1, Outcome: "success", Duration: 2 * time.Second, Seconds: 2, Usage: u1},
			{Loop: 2, Outcome: "timeout", Duration: 15 * time.Minute, Seconds: 900},
			{Loop: 3, Outcome: "circuit_breaker_trip", Duration: 1500 * time.Millisecond, Seconds: 1.5, Usage: u3},
		},
		FailedCalls: 1,
		Outcomes:    map[string]int{"success": 1, "timeout": 1, "circuit_breaker_trip": 1},
		Totals:      events.Usage{InputTokens: 1210, OutputTokens: 341, CacheReadTokens: 5002, CacheCreationTokens: 203, CostUSD: 0.1},
		Breaker: []report.Change{
			{At: t0.Add(7 * time.Second), Loop: 3, From: "CLOSED", To: "HALF_OPEN", Reason: "no progress in 2 loops"},
			{At: t0.Add(10 * time.Second), Loop: 3, From: "HALF_OPEN", To: "OPEN", Reason: "no progress in 3 loops"},
		},
		Waits:     map[string]int{"failure_backoff": 1},
		Receipts:  []report.Receipt{},
		Questions: []report.Question{},
	}}
	if diff := cmp.Diff(want, runs, cmpopts.IgnoreUnexported(report.Summary{}), cmpopts.EquateApproxTime(0)); diff != "" {
		t.Errorf("runs (-want +got):\n%s", diff)
	}
	// The totals are the sum of the loops' usage, exactly.
	var sum events.Usage
	for _, lp := range runs[0].Loops {
		if lp.Usage != nil {
			sum = sum.Add(*lp.Usage)
		}
	}
	if sum != runs[0].Totals {
		t.Errorf("loop sum %+v != totals %+v", sum, runs[0].Totals)
	}
}

// Several runs append to one log; a run killed without run_finished is
// reported as unfinished; two runs started in the same second (same id)
// stay apart.
func TestReadSeveralRuns(t *testing.T) {
	var all bytes.Buffer
	a := newLog("2030-03-04T05:06:07+00:00", t0)
	haltedRun(a)
	all.Write(a.buf.Bytes())

	b := newLog("2030-03-04T05:06:07+00:00", t0.Add(500*time.Millisecond))
	b.emit(events.Event{Type: events.RunStarted, Driver: "claude-code"})
	b.call(1, events.IterationCompleted, &events.Iteration{Outcome: "success", WallMS: 10, Usage: u1})
	b.snap.Loop = 2
	b.emit(events.Event{Type: events.IterationStarted})
	all.Write(b.buf.Bytes())

	runs, err := report.Read(&all)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 2 {
		t.Fatalf("%d runs, want 2", len(runs))
	}
	last := report.Last(runs)
	if last != runs[1] || last.Driver != "claude-code" || last.Finished || len(last.Loops) != 1 || last.Totals != *u1 || last.ExitCode != nil {
		t.Errorf("last run %+v", last)
	}
	if !runs[0].Finished || len(runs[0].Loops) != 3 {
		t.Errorf("first run %+v", runs[0])
	}
	if report.Last(nil) != nil {
		t.Error("Last(nil) != nil")
	}
}

// Broken lines are counted and skipped; a last line without its newline
// (an append under way) is left out silently; long lines are read.
func TestReadDamagedLog(t *testing.T) {
	l := newLog("r", t0)
	l.emit(events.Event{Type: events.RunStarted, Driver: "codex"})
	l.buf.WriteString("not json\n{\"v\":1}\n\n   \n{\"type\":\n")
	l.emit(events.Event{Type: events.DelayStarted, Wait: "loop_delay", Message: strings.Repeat("m", 200<<10)})
	l.emit(events.Event{Type: events.RunFinished, Status: "completed", Reason: "plan_complete", ExitCode: new(0)})
	l.buf.WriteString(`{"v":1,"ts":"2030-03-04T05:07:00Z","type":"iteration_st`)
	data := "garbage before any event\n{}\n" + l.buf.String()
	runs, err := report.Read(strings.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 1 {
		t.Fatalf("%d runs", len(runs))
	}
	s := runs[0]
	if s.Invalid != 5 || !s.Finished || s.ExitReason != "plan_complete" || s.Waits["loop_delay"] != 1 {
		t.Errorf("summary invalid=%d finished=%v reason=%q waits=%v", s.Invalid, s.Finished, s.ExitReason, s.Waits)
	}
}

// A call event without its iteration record (never written by the engine,
// but a log may be hand-made) takes its time from iteration_started.
func TestReadDurationFallback(t *testing.T) {
	l := newLog("r", t0)
	l.snap.Loop = 1
	l.emit(events.Event{Type: events.IterationStarted})
	l.emit(events.Event{Type: events.IterationFailed})
	runs, _ := report.Read(&l.buf)
	if got := runs[0].Loops; len(got) != 1 || got[0].Outcome != "iteration_failed" || got[0].Duration != time.Second {
		t.Errorf("loops %+v", got)
	}
}

type failReader struct{ n int }

func (f *failReader) Read(p []byte) (int, error) {
	if f.n > 0 {
		return 0, errors.New("disk on fire")
	}
	f.n++
	return copy(p, "{\"type\":\"run_started\",\"run_id\":\"x\"}\n"), nil
}

func TestReadError(t *testing.T) {
	runs, err := report.Read(&failReader{})
	if err == nil || !strings.Contains(err.Error(), "read events: disk on fire") {
		t.Errorf("err = %v", err)
	}
	if len(runs) != 1 {
		t.Errorf("runs read before the error are returned: %d", len(runs))
	}
}

func TestWriteText(t *testing.T) {
	l := newLog("2030-03-04T05:06:07+00:00", t0)
	haltedRun(l)
	runs, _ := report.Read(&l.buf)
	var out bytes.Buffer
	report.WriteText(&out, runs[0])
	text := out.String()
	for _, want := range []string{
		"Run 2030-03-04T05:06:07+00:00 (codex)\n",
		"  started  " + t0.Local().Format(events.LocalStamp) + "\n",
		"  ended    " + t0.Add(11*time.Second).Local().Format(events.LocalStamp) + "  (11s)\n",
		"  stopped  stagnation_detected, exit code 2, status halted\n",
		"  1     success                      2.0         1200          340     0.0123\n",
		"  2     timeout                    900.0            -            -          -\n",
		"  3     circuit_breaker_trip         1.5           10            1     0.0877\n",
		"  loops 3, circuit_breaker_trip 1, success 1, timeout 1\n",
		"  tokens: input 1210, output 341, cache read 5002, cache write 203; cost $0.1000\n",
		"    loop 3: CLOSED → HALF_OPEN (no progress in 2 loops)\n",
		"    loop 3: HALF_OPEN → OPEN (no progress in 3 loops)\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("report lacks %q:\n%s", want, text)
		}
	}

	unfinished := newLog("u", t0)
	unfinished.emit(events.Event{Type: events.RunStarted})
	runs, _ = report.Read(&unfinished.buf)
	out.Reset()
	report.WriteText(&out, runs[0])
	if !strings.Contains(out.String(), "still running, or ended without a run_finished event") {
		t.Errorf("unfinished run:\n%s", out.String())
	}
}

func TestWriteJSON(t *testing.T) {
	l := newLog("r", t0)
	l.emit(events.Event{Type: events.RunStarted, Driver: "codex"})
	l.emit(events.Event{Type: events.RunFinished, Status: "stopped", Reason: "max_cost", ExitCode: new(5)})
	runs, _ := report.Read(&l.buf)
	var out bytes.Buffer
	if err := report.WriteJSON(&out, runs[0]); err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(out.Bytes(), &m); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	// Lists are [] when empty, never null.
	for _, k := range []string{"loops", "breaker_changes"} {
		if _, ok := m[k].([]any); !ok {
			t.Errorf("%s = %v, want a list", k, m[k])
		}
	}
	if m["exit_reason"] != "max_cost" || m["exit_code"] != 5.0 || m["finished"] != true || m["run_id"] != "r" {
		t.Errorf("json %s", out.String())
	}
	totals, _ := m["totals"].(map[string]any)
	for _, k := range []string{"input_tokens", "output_tokens", "cache_read_tokens", "cache_creation_tokens", "cost_usd"} {
		if _, ok := totals[k]; !ok {
			t.Errorf("totals lack %s", k)
		}
	}
}

// A line over MaxLine (a damaged or hostile log) is counted invalid and
// skipped, never held whole; the events around it still count, and an
// overlong unfinished last line is left out silently.
func TestReadOverlongLine(t *testing.T) {
	l := newLog("r", t0)
	l.emit(events.Event{Type: events.RunStarted, Driver: "codex"})
	l.buf.WriteString(strings.Repeat("x", 3*report.MaxLine) + "\n")
	l.emit(events.Event{Type: events.RunFinished, Status: "completed", Reason: "plan_complete", ExitCode: new(0)})
	l.buf.WriteString(strings.Repeat("y", 2*report.MaxLine))
	runs, err := report.Read(strings.NewReader(l.buf.String()))
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 1 || runs[0].Invalid != 1 || !runs[0].Finished {
		t.Fatalf("runs = %d, invalid = %d", len(runs), runs[0].Invalid)
	}
}

// TestReceipts: the calls since the previous tick are what a ticked task
// took; tasks ticked by one call share its numbers; calls after the last
// tick belong to no receipt.
func TestReceipts(t *testing.T) {
	l := newLog("r", t0)
	l.emit(events.Event{Type: events.RunStarted, Driver: "codex"}) // t0
	l.call(1, events.IterationCompleted, &events.Iteration{Outcome: "success", Usage: u1})
	l.call(2, events.IterationFailed, &events.Iteration{Outcome: "error", Usage: u3})
	l.call(3, events.IterationCompleted, &events.Iteration{Outcome: "success", Usage: u3, TasksTicked: []string{"A"}}) // t0+6s
	l.call(4, events.IterationCompleted, &events.Iteration{Outcome: "success", Usage: u1, TasksTicked: []string{"B", "C"}})
	l.call(5, events.IterationCompleted, &events.Iteration{Outcome: "success", Usage: u1})
	runs, err := report.Read(&l.buf)
	if err != nil {
		t.Fatal(err)
	}
	u1t, u3t := u1.Tokens(), u3.Tokens()
	want := []report.Receipt{
		{Task: "A", Loop: 3, Loops: 3, Calls: 3, Tokens: u1t + 2*u3t, CostUSD: 0.1877, Seconds: 6},
		{Task: "B", Loop: 4, Loops: 1, Calls: 1, Tokens: u1t, CostUSD: 0.0123, Seconds: 2, SharedBy: 2},
		{Task: "C", Loop: 4, Loops: 1, Calls: 1, Tokens: u1t, CostUSD: 0.0123, Seconds: 2, SharedBy: 2},
	}
	if d := cmp.Diff(want, runs[0].Receipts); d != "" {
		t.Errorf("receipts (-want +got):\n%s", d)
	}
	var out bytes.Buffer
	report.WriteText(&out, runs[0])
	for _, line := range []string{
		"  tasks ticked:\n",
		"  3         3     3         6772     0.1877       6.0  A\n",
		"  4         1     1         6740     0.0123       2.0  C  (shared by 2 tasks)\n",
	} {
		if !strings.Contains(out.String(), line) {
			t.Errorf("text lacks %q:\n%s", line, out.String())
		}
	}
}

// TestReceiptVerdicts: a receipt carries its task's VERIFY_COMMAND
// verdict; a tick the check took back has a receipt of its own that says
// so, and its calls go on to the receipt of the task's next tick.
func TestReceiptVerdicts(t *testing.T) {
	l := newLog("r", t0)
	l.emit(events.Event{Type: events.RunStarted, Driver: "claude-code"})
	l.call(1, events.IterationCompleted, &events.Iteration{Outcome: "success", Usage: u1,
		Verified: []events.TaskVerdict{{Task: "A", ExitCode: 1}}})
	l.call(2, events.IterationCompleted, &events.Iteration{Outcome: "success", Usage: u1, TasksTicked: []string{"A"},
		Verified: []events.TaskVerdict{{Task: "A", Passed: true}}})
	runs, err := report.Read(&l.buf)
	if err != nil {
		t.Fatal(err)
	}
	u1t := u1.Tokens()
	want := []report.Receipt{
		{Task: "A", Loop: 1, Loops: 1, Calls: 1, Tokens: u1t, CostUSD: 0.0123, Seconds: 2, Verdict: "failed (exit 1)"},
		{Task: "A", Loop: 2, Loops: 2, Calls: 2, Tokens: 2 * u1t, CostUSD: 0.0246, Seconds: 4, Verdict: "passed"},
	}
	if d := cmp.Diff(want, runs[0].Receipts); d != "" {
		t.Errorf("receipts (-want +got):\n%s", d)
	}
	var out bytes.Buffer
	report.WriteText(&out, runs[0])
	for _, line := range []string{"  A  [check failed (exit 1)]\n", "  A  [check passed]\n"} {
		if !strings.Contains(out.String(), line) {
			t.Errorf("text lacks %q:\n%s", line, out.String())
		}
	}
}

// TestConcat: logs read one after the other; a copy that ends without its
// newline does not join its last event with the next copy's first.
func TestConcat(t *testing.T) {
	a, b := newLog("r1", t0), newLog("r2", t0.Add(time.Hour))
	haltedRun(a)
	b.emit(events.Event{Type: events.RunStarted, Driver: "codex"})
	old := bytes.TrimSuffix(a.buf.Bytes(), []byte("\n"))
	runs, err := report.Read(bytes.NewReader(old), &b.buf)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 2 || runs[0].RunID != "r1" || !runs[0].Finished || runs[1].RunID != "r2" || runs[0].Invalid+runs[1].Invalid != 0 {
		t.Fatalf("runs = %+v", runs)
	}
	if report.Find(runs, "r1") != runs[0] || report.Find(runs, "r9") != nil {
		t.Error("Find")
	}
	h := report.History(runs)
	if len(h) != 2 || h[0].Loops != 3 || h[0].ExitReason != "stagnation_detected" || h[0].Tokens != u1.Tokens()+u3.Tokens() {
		t.Errorf("History = %+v", h)
	}
}

// TestFailedStartupsGrouped: start-ups that failed before the loop began
// (a run_finished alone, three in the same second share a run id) are one
// line of the history, and the last run shown in full is the one that ran.
func TestFailedStartupsGrouped(t *testing.T) {
	var all bytes.Buffer
	a := newLog("2030-03-04T05:06:07+00:00", t0)
	haltedRun(a)
	all.Write(a.buf.Bytes())
	for range 3 {
		f := newLog("2030-03-04T06:00:00+00:00", t0.Add(time.Hour))
		f.emit(events.Event{Type: events.RunFinished, Action: "startup_failed", Status: "stopped", Reason: "error", ExitCode: new(1)})
		all.Write(f.buf.Bytes())
	}
	runs, err := report.Read(&all)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 4 {
		t.Fatalf("%d runs, want 4 (one that ran, three failed start-ups)", len(runs))
	}
	if last := report.Last(runs); last != runs[0] {
		t.Errorf("Last is %+v; want the run that got past its start-up", last)
	}
	var b bytes.Buffer
	report.WriteHistory(&b, runs)
	text := b.String()
	if n := strings.Count(text, "\n  "); n != 3 { // the header, the run, one line for the start-ups
		t.Errorf("history has %d lines, want 3:\n%s", n, text)
	}
	if !strings.Contains(text, "3 failed start-ups, the last at") {
		t.Errorf("history does not group the failed start-ups:\n%s", text)
	}
}

// A completed run whose quality gates fail (warn mode let it through)
// says so, naming the failing gates and their log; passing gates are one
// short line.
func TestWriteTextGates(t *testing.T) {
	for _, tc := range []struct {
		gates *events.Gates
		want  string
	}{
		{&events.Gates{OverallStatus: "fail", Mode: "warn", Failing: []string{"go test ./..."}, Log: ".ralph/logs/quality_gates_x.log"},
			"  quality gates FAILING (warn mode): go test ./...; full output: .ralph/logs/quality_gates_x.log\n"},
		{&events.Gates{OverallStatus: "pass", Mode: "block"}, "  quality gates pass (block mode)\n"},
	} {
		l := newLog("g", t0)
		l.emit(events.Event{Type: events.RunStarted})
		l.snap.QualityGates = tc.gates
		l.emit(events.Event{Type: events.RunFinished, Status: "completed", Reason: "plan_complete", ExitCode: new(0)})
		runs, _ := report.Read(&l.buf)
		var out bytes.Buffer
		report.WriteText(&out, runs[0])
		if !strings.Contains(out.String(), "  stopped  plan_complete, exit code 0, status completed\n"+tc.want) {
			t.Errorf("report lacks %q:\n%s", tc.want, out.String())
		}
	}
}

// TestQuestions: the agent's questions and what came of each, in the
// text (the question's escapes made visible) and in the JSON.
func TestQuestions(t *testing.T) {
	l := newLog("2030-03-04T05:06:07+00:00", t0)
	l.emit(events.Event{Type: events.RunStarted, Driver: "claude-code"})
	l.call(1, events.IterationCompleted, &events.Iteration{Outcome: "success", WallMS: 1000})
	l.emit(events.Event{Type: events.QuestionAsked, Question: &events.Question{Text: "Postgres \x1b[31mor\x1b[0m SQLite?", Loop: 1}})
	l.emit(events.Event{Type: events.QuestionAnswered, Question: &events.Question{Text: "Postgres or SQLite?", Loop: 1, Answer: "SQLite", Via: "dashboard"}})
	l.call(2, events.IterationCompleted, &events.Iteration{Outcome: "success", WallMS: 1000})
	l.emit(events.Event{Type: events.QuestionAsked, Question: &events.Question{Text: "Which key?", Loop: 2}})
	l.emit(events.Event{Type: events.QuestionUnanswered, Reason: "timeout", Question: &events.Question{Text: "Which key?", Loop: 2, Then: "skip", Task: "Task B"}})
	l.emit(events.Event{Type: events.RunFinished, Reason: "max_loops", ExitCode: new(4)})
	runs, err := report.Read(&l.buf)
	if err != nil {
		t.Fatal(err)
	}
	qs := runs[0].Questions
	if len(qs) != 2 || qs[0].Outcome != "answered" || qs[0].Answer != "SQLite" || qs[0].Via != "dashboard" ||
		qs[1].Outcome != "timeout" || qs[1].Then != "skip" || qs[1].Task != "Task B" {
		t.Fatalf("questions: %+v", qs)
	}
	var b strings.Builder
	report.WriteText(&b, report.Last(runs))
	for _, want := range []string{
		`    loop 1: "Postgres \u001b[31mor\u001b[0m SQLite?"`,
		`answered via dashboard after 1s: "SQLite"`,
		`no answer (timeout after 1s): skip, task "Task B" set aside`,
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, b.String())
		}
	}
	if strings.Contains(b.String(), "\x1b") {
		t.Error("an escape reached the text")
	}
}
