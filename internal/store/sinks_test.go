package store

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/ralphloop/ralph_loop/internal/events"
	"github.com/ralphloop/ralph_loop/internal/observe"
	"github.com/ralphloop/ralph_loop/internal/ralphdir"
)

var t0 = time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)

func fixedClock() time.Time { return t0 }

func newDir(t *testing.T) *ralphdir.Dir {
	t.Helper()
	d := ralphdir.New(filepath.Join(t.TempDir(), ".ralph"), func(msg string) { t.Logf("ralphdir: %s", msg) })
	if err := d.EnsureLayout(); err != nil {
		t.Fatal(err)
	}
	return d
}

// failOnErr is an onErr that fails the test.
func failOnErr(t *testing.T) func(error) {
	return func(err error) { t.Helper(); t.Errorf("sink error: %v", err) }
}

func readFile(t *testing.T, d *ralphdir.Dir, name string) []byte {
	t.Helper()
	data, found, err := d.ReadFile(name)
	if err != nil || !found {
		t.Fatalf("%s: found=%v err=%v", name, found, err)
	}
	return data
}

// keysOf returns the top-level keys of a JSON object in file order.
func keysOf(t *testing.T, data []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("not a JSON object: %s", data)
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

func TestStatusFileShapeAndKeyOrder(t *testing.T) {
	d := newDir(t)
	b := observe.New(fixedClock, "run")
	b.Add(newStatus(d, failOnErr(t)))
	emit(b, events.Event{
		Type: events.RunFinished, Action: "budget_exhausted", Status: "stopped", Reason: "max_cost",
		ExitCode: new(5), DriverExitCode: new(1),
		Snapshot: events.Snapshot{
			Loop: 3, CallsThisHour: 4, MaxCalls: 100, NextReset: "04:00:00", TasksCompleted: 1, TasksTotal: 5,
			BreakerState: "CLOSED",
			Totals:       events.Usage{InputTokens: 10, OutputTokens: 20, CacheReadTokens: 30, CacheCreationTokens: 40, CostUSD: 0.8},
			QualityGates: &events.Gates{OverallStatus: "pass", Mode: "warn"},
		},
	})
	// The bash loop's keys in its order, then tasks_*, the *_total usage
	// fields and the quality_gates merge.
	want := `{
  "timestamp": "2030-01-02T03:04:05+00:00",
  "loop_count": 3,
  "calls_made_this_hour": 4,
  "max_calls_per_hour": 100,
  "last_action": "budget_exhausted",
  "status": "stopped",
  "exit_reason": "max_cost",
  "next_reset": "04:00:00",
  "driver_exit_code": 1,
  "tasks_completed": 1,
  "tasks_total": 5,
  "calls_this_run": 0,
  "failed_calls_this_run": 0,
  "input_tokens_total": 10,
  "output_tokens_total": 20,
  "cache_read_tokens_total": 30,
  "cache_creation_tokens_total": 40,
  "cost_usd_total": 0.8,
  "quality_gates": {
    "overall_status": "pass",
    "mode": "warn"
  }
}
`
	if diff := cmp.Diff(want, string(readFile(t, d, ralphdir.Status))); diff != "" {
		t.Errorf("status.json (-want +got):\n%s", diff)
	}
}

func TestStatusFileDefaults(t *testing.T) {
	d := newDir(t)
	b := observe.New(fixedClock, "run")
	b.Add(newStatus(d, failOnErr(t)))
	emit(b, events.Event{Type: events.IterationStarted, Action: "executing", Status: "running"})
	data := readFile(t, d, ralphdir.Status)
	wantKeys := []string{"timestamp", "loop_count", "calls_made_this_hour", "max_calls_per_hour", "last_action", "status",
		"exit_reason", "next_reset", "driver_exit_code", "tasks_completed", "tasks_total", "calls_this_run", "failed_calls_this_run", "input_tokens_total",
		"output_tokens_total", "cache_read_tokens_total", "cache_creation_tokens_total", "cost_usd_total"}
	if diff := cmp.Diff(wantKeys, keysOf(t, data)); diff != "" {
		t.Errorf("keys (-want +got):\n%s", diff)
	}
	var m map[string]any
	json.Unmarshal(data, &m)
	if m["driver_exit_code"] != nil || m["exit_reason"] != "" || m["cost_usd_total"] != 0.0 {
		t.Errorf("defaults: %s", data)
	}
}

// exit_reason is the stop reason (run_finished) or a failed call's
// description (its failure's words); other events never leave one behind.
func TestStatusExitReason(t *testing.T) {
	tests := []struct {
		typ  events.Type
		want string
	}{
		{events.RunFinished, "why"},
		{events.IterationFailed, "error (exit 2)"},
		{events.IterationTimedOut, "error (exit 2)"},
		{events.UsageLimited, ""},
		{events.IterationCompleted, ""},
		{events.Paused, ""},
	}
	for _, tt := range tests {
		d := newDir(t)
		b := observe.New(fixedClock, "run")
		b.Add(newStatus(d, failOnErr(t)))
		emit(b, events.Event{Type: tt.typ, Action: "x", Status: "running", Reason: "why", DriverExitCode: new(2)})
		var st StatusFile
		if err := json.Unmarshal(readFile(t, d, ralphdir.Status), &st); err != nil {
			t.Fatal(err)
		}
		if st.ExitReason != tt.want {
			t.Errorf("%s: exit_reason %q, want %q", tt.typ, st.ExitReason, tt.want)
		}
	}
}

// Only events that carry a status touch status.json.
func TestStatusSkipsEventsWithoutStatus(t *testing.T) {
	d := newDir(t)
	b := observe.New(fixedClock, "run")
	b.Add(newStatus(d, failOnErr(t)))
	for _, typ := range []events.Type{events.RunStarted, events.BreakerChanged, events.DelayStarted, events.DelayEnded, events.RateLimited, events.IterationProgress} {
		emit(b, events.Event{Type: typ})
	}
	if d.Exists(ralphdir.Status) {
		t.Errorf("status.json written for an event without a status")
	}
}

// status is always one of the eight values bmalph accepts.
func TestStatusOnlyAllowedValues(t *testing.T) {
	if len(statusValues) != 8 {
		t.Fatalf("bmalph accepts 8 status values, the store lists %d", len(statusValues))
	}
	inputs := append([]string{"retrying", "RUNNING", "Running", " running", "unknown", "halted\n", "\x00"}, statusValues...)
	for _, in := range inputs {
		d := newDir(t)
		b := observe.New(fixedClock, "run")
		b.Add(newStatus(d, failOnErr(t)))
		emit(b, events.Event{Type: events.IterationFailed, Status: in})
		var st StatusFile
		if err := json.Unmarshal(readFile(t, d, ralphdir.Status), &st); err != nil {
			t.Fatal(err)
		}
		want := in
		if !validStatus(in) {
			want = "running"
		}
		if st.Status != want || !validStatus(st.Status) {
			t.Errorf("status %q written as %q, want %q", in, st.Status, want)
		}
	}
}

func TestStatusWriteErrorReported(t *testing.T) {
	d := newDir(t)
	// A folder where status.json should be: the rename fails.
	if err := os.MkdirAll(filepath.Join(d.Path(ralphdir.Status), "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	var errs []error
	b := observe.New(fixedClock, "run")
	b.Add(newStatus(d, func(err error) { errs = append(errs, err) }))
	emit(b, events.Event{Type: events.IterationStarted, Status: "running"})
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "status.json") {
		t.Errorf("errors %v", errs)
	}
}

// progress.json stays valid JSON whatever the agent printed.
func TestProgressAlwaysValidJSON(t *testing.T) {
	tests := []struct{ name, msg string }{
		{"empty", ""},
		{"quotes", `he said "done" and 'ok'`},
		{"backslashes", `C:\path\to\file \" \\ \n literally`},
		{"control chars", "a\x00b\x01c\x07d\x08e\tf\ng\rh\x1b[31mred\x1b[0m\x7f"},
		{"invalid utf-8", "ok \xff\xfe bad \xc3 cut \xe2\x82 more"},
		{"only continuation bytes", strings.Repeat("\x80", 200)},
		{"emoji across the cut", strings.Repeat("x", 78) + "🎉🎉"},
		{"two-byte runes", "x" + strings.Repeat("é", 100)}, // the cut at 80 falls inside a rune
		{"json inside", `{"type":"result","result":"x\"y"}`},
		{"html", `<script>alert("&")</script>`},
		{"line separators", "a\u2028b\u2029c"},
		{"very long", strings.Repeat("abc\"\\", 10000)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkProgress(t, tt.msg)
		})
	}
}

func checkProgress(t *testing.T, msg string) {
	t.Helper()
	d := newDir(t)
	b := observe.New(fixedClock, "run")
	b.Add(newProgress(d, failOnErr(t)))
	emit(b, events.Event{Type: events.IterationStarted})
	emit(b, events.Event{Type: events.IterationProgress, Message: msg, DelaySecs: 20})
	data := readFile(t, d, progressFile)
	if !json.Valid(data) {
		t.Fatalf("progress.json is not valid JSON for %q:\n%s", msg, data)
	}
	var p struct {
		Status         string `json:"status"`
		Indicator      string `json:"indicator"`
		ElapsedSeconds int    `json:"elapsed_seconds"`
		LastOutput     string `json:"last_output"`
		Timestamp      string `json:"timestamp"`
	}
	if err := json.Unmarshal(data, &p); err != nil {
		t.Fatal(err)
	}
	if p.Status != "executing" || p.ElapsedSeconds != 20 || p.Timestamp != t0.Local().Format(events.LocalStamp) {
		t.Errorf("progress %+v", p)
	}
	if !utf8.ValidString(p.LastOutput) {
		t.Errorf("last_output is not valid UTF-8: %q", p.LastOutput)
	}
	if utf8.ValidString(msg) {
		// A valid message is cut at 80 bytes, never inside a rune.
		if len(p.LastOutput) > 80 || !strings.HasPrefix(msg, p.LastOutput) || len(msg) > 0 && p.LastOutput == "" && len(msg) <= 80 {
			t.Errorf("last_output %q for %q", p.LastOutput, msg)
		}
		if len(msg) <= 80 && p.LastOutput != msg {
			t.Errorf("short message changed: %q", p.LastOutput)
		}
		if len(msg) > 80 && len(p.LastOutput) < 77 {
			t.Errorf("cut too short: %d bytes", len(p.LastOutput))
		}
	}
}

func FuzzProgressJSON(f *testing.F) {
	for _, s := range []string{"", `"\`, "\x00\xff", "🎉", strings.Repeat("é", 50)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, msg string) { checkProgress(t, msg) })
}

func TestProgressForms(t *testing.T) {
	tests := []struct {
		typ  events.Type
		want string // "" = no write
	}{
		{events.IterationCompleted, `{"status":"completed","timestamp":"S"}`},
		{events.IterationIdle, `{"status":"completed","timestamp":"S"}`},
		{events.IterationDenied, `{"status":"completed","timestamp":"S"}`},
		{events.IterationFailed, `{"status":"failed","timestamp":"S"}`},
		{events.IterationTimedOut, `{"status":"failed","timestamp":"S"}`},
		{events.IterationStarted, ""},
		{events.RunStarted, ""},
		{events.RunFinished, ""},
		{events.DelayStarted, ""},
	}
	stamp := t0.Local().Format(events.LocalStamp)
	for _, tt := range tests {
		d := newDir(t)
		b := observe.New(fixedClock, "run")
		b.Add(newProgress(d, failOnErr(t)))
		emit(b, events.Event{Type: tt.typ})
		data, found, _ := d.ReadFile(progressFile)
		if tt.want == "" {
			if found {
				t.Errorf("%s wrote progress.json: %s", tt.typ, data)
			}
			continue
		}
		var got, want any
		json.Unmarshal(data, &got)
		json.Unmarshal([]byte(strings.Replace(tt.want, "S", stamp, 1)), &want)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %s, want %s", tt.typ, data, tt.want)
		}
	}
}

// The spinner turns once per tick and starts over with each call.
func TestProgressIndicator(t *testing.T) {
	d := newDir(t)
	b := observe.New(fixedClock, "run")
	b.Add(newProgress(d, failOnErr(t)))
	var got []string
	tick := func() {
		emit(b, events.Event{Type: events.IterationProgress})
		var p struct{ Indicator string }
		json.Unmarshal(readFile(t, d, progressFile), &p)
		got = append(got, p.Indicator)
	}
	emit(b, events.Event{Type: events.IterationStarted})
	for i := 0; i < 5; i++ {
		tick()
	}
	emit(b, events.Event{Type: events.IterationStarted})
	tick()
	want := []string{"⠋", "⠙", "⠹", "⠸", "⠋", "⠋"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("indicators (-want +got):\n%s", diff)
	}
}

func metricsLines(t *testing.T, d *ralphdir.Dir) []string {
	t.Helper()
	data, found, err := d.ReadFile(ralphdir.MetricsLog)
	if err != nil {
		t.Fatal(err)
	}
	if !found {
		return nil
	}
	if !bytes.HasSuffix(data, []byte("\n")) {
		t.Errorf("metrics.jsonl does not end with a newline")
	}
	return strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
}

var bashMetricsKeys = []string{"run_id", "loop", "timestamp", "driver", "session_id", "loop_outcome",
	"duration_ms", "duration_api_ms", "input_tokens", "output_tokens", "cache_read_tokens", "cache_creation_tokens",
	"total_cost_usd", "num_turns", "files_changed", "reported_files_modified", "has_errors", "exit_signal",
	"was_read_only_timeout", "quality_gate_result", "has_permission_denials", "circuit_breaker_state"}

func TestMetricsLineWithUsage(t *testing.T) {
	d := newDir(t)
	b := observe.New(fixedClock, "2030-01-02T03:00:00+00:00")
	b.Add(newMetrics(d, failOnErr(t)))
	dur, api, turns := int64(4200), int64(3900), int64(3)
	emit(b, events.Event{Type: events.IterationCompleted, Snapshot: events.Snapshot{Loop: 2, BreakerState: "HALF_OPEN"}, Iteration: &events.Iteration{
		Outcome: "success", Driver: "claude-code", SessionID: "sess-1", WallMS: 5123,
		DurationMS: &dur, DurationAPIMS: &api, NumTurns: &turns,
		Usage:        &events.Usage{InputTokens: 1200, OutputTokens: 340, CacheReadTokens: 5000, CacheCreationTokens: 200, CostUSD: 0.0123},
		FilesChanged: 2, ReportedFilesModified: 3, HasErrors: true, ExitSignal: true, QualityGateResult: new(0),
	}})
	lines := metricsLines(t, d)
	if len(lines) != 1 {
		t.Fatalf("%d lines", len(lines))
	}
	want := `{"run_id":"2030-01-02T03:00:00+00:00","loop":2,"timestamp":"2030-01-02T03:04:05+00:00","driver":"claude-code","session_id":"sess-1","loop_outcome":"success","duration_ms":4200,"duration_api_ms":3900,"input_tokens":1200,"output_tokens":340,"cache_read_tokens":5000,"cache_creation_tokens":200,"total_cost_usd":0.0123,"num_turns":3,"files_changed":2,"reported_files_modified":3,"has_errors":true,"exit_signal":true,"was_read_only_timeout":false,"quality_gate_result":0,"has_permission_denials":false,"circuit_breaker_state":"HALF_OPEN","wall_ms":5123}`
	if diff := cmp.Diff(want, lines[0]); diff != "" {
		t.Errorf("metrics line (-want +got):\n%s", diff)
	}
}

// Without usage the bash loop's usage fields are present and null.
func TestMetricsLineNullsWithoutUsage(t *testing.T) {
	d := newDir(t)
	b := observe.New(fixedClock, "run")
	b.Add(newMetrics(d, failOnErr(t)))
	emit(b, events.Event{Type: events.IterationCompleted, Iteration: &events.Iteration{Outcome: "success", Driver: "codex"}})
	lines := metricsLines(t, d)
	if len(lines) != 1 {
		t.Fatalf("%d lines", len(lines))
	}
	wantKeys := append(append([]string{}, bashMetricsKeys...), "wall_ms")
	if diff := cmp.Diff(wantKeys, keysOf(t, []byte(lines[0]))); diff != "" {
		t.Errorf("keys (-want +got):\n%s", diff)
	}
	var m map[string]json.RawMessage
	json.Unmarshal([]byte(lines[0]), &m)
	for _, k := range []string{"duration_ms", "duration_api_ms", "input_tokens", "output_tokens", "cache_read_tokens",
		"cache_creation_tokens", "total_cost_usd", "num_turns", "quality_gate_result"} {
		if string(m[k]) != "null" {
			t.Errorf("%s = %s, want null", k, m[k])
		}
	}
	if string(m["circuit_breaker_state"]) != `"UNKNOWN"` || string(m["session_id"]) != `""` {
		t.Errorf("line %s", lines[0])
	}
}

// Failed, timed-out and breaker-tripping calls get a line too: the
// bash loop's loop_outcome, our detail in outcome_detail.
func TestMetricsOutcomes(t *testing.T) {
	tests := []struct {
		typ            events.Type
		outcome        string
		want, detail   string
		readOnlyTimout bool
	}{
		{events.IterationCompleted, "success", "success", "", false},
		{events.IterationIdle, "idle", "success", "idle", false},
		{events.IterationDenied, "permission_denied", "success", "permission_denied", false},
		{events.IterationFailed, "error", "error", "", false},
		{events.IterationFailed, "start_failed", "error", "start_failed", false},
		{events.IterationFailed, "interrupted", "error", "interrupted", false},
		{events.IterationFailed, "api_limit", "api_limit", "", false},
		{events.IterationTimedOut, "timeout", "error", "timeout", false},
		{events.IterationTimedOut, "inactive", "error", "inactive", false},
		{events.IterationTimedOut, "read_only_timeout", "read_only_timeout", "", true},
		{events.IterationCompleted, "circuit_breaker_trip", "circuit_breaker_trip", "", false},
	}
	for _, tt := range tests {
		d := newDir(t)
		b := observe.New(fixedClock, "run")
		b.Add(newMetrics(d, failOnErr(t)))
		emit(b, events.Event{Type: tt.typ, Iteration: &events.Iteration{Outcome: tt.outcome, WallMS: 900000, DriverExitCode: new(124)}})
		lines := metricsLines(t, d)
		if len(lines) != 1 {
			t.Fatalf("%s/%s: %d lines", tt.typ, tt.outcome, len(lines))
		}
		var m struct {
			LoopOutcome        string `json:"loop_outcome"`
			OutcomeDetail      string `json:"outcome_detail"`
			WasReadOnlyTimeout bool   `json:"was_read_only_timeout"`
			WallMS             int64  `json:"wall_ms"`
			DriverExitCode     *int   `json:"driver_exit_code"`
		}
		if err := json.Unmarshal([]byte(lines[0]), &m); err != nil {
			t.Fatal(err)
		}
		if m.LoopOutcome != tt.want || m.OutcomeDetail != tt.detail || m.WasReadOnlyTimeout != tt.readOnlyTimout ||
			m.WallMS != 900000 || m.DriverExitCode == nil || *m.DriverExitCode != 124 {
			t.Errorf("%s/%s: %s", tt.typ, tt.outcome, lines[0])
		}
		valid := map[string]bool{"success": true, "circuit_breaker_trip": true, "api_limit": true, "read_only_timeout": true, "error": true}
		if !valid[m.LoopOutcome] {
			t.Errorf("loop_outcome %q is not one of the bash loop's", m.LoopOutcome)
		}
	}
}

func TestMetricsOnlyForFinishedCalls(t *testing.T) {
	d := newDir(t)
	b := observe.New(fixedClock, "run")
	b.Add(newMetrics(d, failOnErr(t)))
	it := &events.Iteration{Outcome: "success"}
	for _, typ := range []events.Type{events.RunStarted, events.IterationStarted, events.IterationProgress, events.DelayStarted, events.BreakerChanged, events.UsageLimited, events.RunFinished, events.ReviewCompleted} {
		emit(b, events.Event{Type: typ, Iteration: it})
	}
	emit(b, events.Event{Type: events.IterationCompleted}) // no events.Iteration
	if lines := metricsLines(t, d); len(lines) != 0 {
		t.Errorf("unexpected metrics lines: %q", lines)
	}
}

// recorder keeps every Write separately.
type recorder struct{ writes [][]byte }

func (r *recorder) Write(p []byte) (int, error) {
	r.writes = append(r.writes, append([]byte(nil), p...))
	return len(p), nil
}

// Every event is one whole NDJSON line, written with one Write.
func TestStreamWritesWholeLines(t *testing.T) {
	d := newDir(t)
	rec := &recorder{}
	b := observe.New(fixedClock, "run-x")
	b.Add(newStream(d, rec, failOnErr(t)))
	msgs := []string{"", "line1\nline2\r\n", "\u2028\u2029", "bad \xff utf-8", "\x00\x1f", `"quoted" \ back`, strings.Repeat("long ", 5000)}
	for i, m := range msgs {
		emit(b, events.Event{Type: events.IterationFailed, Reason: m, Snapshot: events.Snapshot{Loop: i}})
	}
	emit(b, events.Event{Type: events.IterationProgress, Message: "not logged"})
	if len(rec.writes) != len(msgs) {
		t.Fatalf("%d writes for %d events", len(rec.writes), len(msgs))
	}
	var file bytes.Buffer
	for i, w := range rec.writes {
		if bytes.Count(w, []byte("\n")) != 1 || !bytes.HasSuffix(w, []byte("\n")) {
			t.Errorf("write %d is not exactly one line: %q", i, w)
		}
		var e events.Event
		if err := json.Unmarshal(w, &e); err != nil {
			t.Errorf("write %d: %v", i, err)
		}
		if e.V != events.SchemaVersion || e.RunID != "run-x" || e.Type != events.IterationFailed || e.Loop != i || !e.TS.Equal(t0) {
			t.Errorf("event %d: %+v", i, e)
		}
		file.Write(w)
	}
	if got := readFile(t, d, ralphdir.EventsLog); !bytes.Equal(got, file.Bytes()) {
		t.Errorf("events.jsonl differs from the stream")
	}
}

// The common fields come first, in a fixed order.
func TestStreamFieldOrder(t *testing.T) {
	rec := &recorder{}
	b := observe.New(fixedClock, "r")
	b.Add(newStream(nil, rec, nil))
	emit(b, events.Event{Type: events.RunStarted, Driver: "codex"})
	keys := keysOf(t, rec.writes[0])
	want := []string{"v", "ts", "type", "run_id", "loop", "calls_made_this_hour", "max_calls_per_hour", "calls_this_run", "failed_calls_this_run", "tasks_completed", "tasks_total", "totals", "driver"}
	if diff := cmp.Diff(want, keys); diff != "" {
		t.Errorf("keys (-want +got):\n%s", diff)
	}
}

// An event that cannot be encoded is reported once and writes nothing.
func TestStreamEncodeError(t *testing.T) {
	d := newDir(t)
	rec := &recorder{}
	var errs []error
	b := observe.New(fixedClock, "r")
	b.Add(newStream(d, rec, func(err error) { errs = append(errs, err) }))
	for i := 0; i < 3; i++ {
		emit(b, events.Event{Type: events.IterationCompleted, Snapshot: events.Snapshot{Totals: events.Usage{CostUSD: math.NaN()}}})
	}
	emit(b, events.Event{Type: events.RunFinished})
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "encode event iteration_completed") {
		t.Errorf("errors %v", errs)
	}
	if len(rec.writes) != 1 || d.Exists(ralphdir.EventsLog) && bytes.Count(readFile(t, d, ralphdir.EventsLog), []byte("\n")) != 1 {
		t.Errorf("writes %q", rec.writes)
	}
}

func TestStreamAppendError(t *testing.T) {
	d := newDir(t)
	if err := os.MkdirAll(d.Path(ralphdir.EventsLog), 0o755); err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	var errs []error
	b := observe.New(fixedClock, "r")
	b.Add(newStream(d, rec, func(err error) { errs = append(errs, err) }))
	emit(b, events.Event{Type: events.RunStarted})
	emit(b, events.Event{Type: events.RunFinished})
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "events.jsonl") {
		t.Errorf("errors %v", errs)
	}
	if len(rec.writes) != 2 {
		t.Errorf("the --events copy must go on: %d writes", len(rec.writes))
	}
}

func TestOutcomeOf(t *testing.T) {
	for in, want := range map[string]string{
		"success": "success", "idle": "success", "permission_denied": "success",
		"api_limit": "api_limit", "circuit_breaker_trip": "circuit_breaker_trip", "read_only_timeout": "read_only_timeout",
		"error": "error", "timeout": "error", "inactive": "error", "start_failed": "error", "interrupted": "error", "": "error",
	} {
		if got := outcomeOf(in); got != want {
			t.Errorf("outcomeOf(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestRalphLog(t *testing.T) {
	d := newDir(t)
	l := NewRalphLog(d, failOnErr(t))
	l.Line(t0, events.Info, "hello 1")
	l.Line(t0, events.Warn, "100% literal")
	l.Line(t0, events.Level("DEBUG"), "shown")
	stamp := t0.Local().Format(events.LocalStamp)
	want := "[" + stamp + "] [INFO] hello 1\n[" + stamp + "] [WARN] 100% literal\n[" + stamp + "] [DEBUG] shown\n"
	if diff := cmp.Diff(want, string(readFile(t, d, ralphdir.RalphLog))); diff != "" {
		t.Errorf("ralph.log (-want +got):\n%s", diff)
	}

	if err := os.Remove(d.Path(ralphdir.RalphLog)); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(d.Path(ralphdir.RalphLog), 0o755)
	var errs []error
	l2 := NewRalphLog(d, func(err error) { errs = append(errs, err) })
	l2.Line(t0, events.Info, "a")
	l2.Line(t0, events.Info, "b")
	if len(errs) != 1 {
		t.Errorf("write errors reported %d times, want once", len(errs))
	}
}
