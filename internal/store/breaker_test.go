package store

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/ralphloop/ralph_loop/breaker"
	"github.com/ralphloop/ralph_loop/internal/ralphdir"
)

// newDir returns an empty .ralph/ folder and the warnings it emits.
func newBreakerDir(t *testing.T) (*ralphdir.Dir, *[]string) {
	t.Helper()
	var warnings []string
	d := ralphdir.New(filepath.Join(t.TempDir(), ".ralph"), func(m string) { warnings = append(warnings, m) })
	if err := d.EnsureLayout(); err != nil {
		t.Fatal(err)
	}
	return d, &warnings
}

func putBreaker(t *testing.T, d *ralphdir.Dir, name, content string) {
	t.Helper()
	if err := os.WriteFile(d.Path(name), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func putBreakerFile(t *testing.T, d *ralphdir.Dir, name, testdata string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "breaker", "testdata", testdata))
	if err != nil {
		t.Fatal(err)
	}
	putBreaker(t, d, name, string(b))
}

func fileContent(t *testing.T, d *ralphdir.Dir, name string) string {
	t.Helper()
	b, err := os.ReadFile(d.Path(name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func breakerGolden(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "breaker", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The files of a new project must be byte-identical to what the bash
// loop's init writes (testdata made with the bash loop's jq calls).
func TestBreakerInitCreatesReferenceFiles(t *testing.T) {
	d, _ := newBreakerDir(t)
	s, tn, err := initBreaker(d, brkT0, defaultConfig())
	if err != nil || tn != nil {
		t.Fatalf("Init = %v, %v; want no error, no transition", tn, err)
	}
	if s.State != breaker.Closed {
		t.Errorf("state = %s, want CLOSED", s.State)
	}
	if diff := cmp.Diff(breakerGolden(t, "bash_fresh.json"), fileContent(t, d, ralphdir.CircuitBreakerState)); diff != "" {
		t.Errorf("state file (-bash +ours):\n%s", diff)
	}
	if got := fileContent(t, d, circuitBreakerHistory); got != "[]\n" {
		t.Errorf("history file = %q, want %q", got, "[]\n")
	}
}

// A .ralph/ left OPEN by the bash loop is continued: after the cooldown
// Init writes exactly what the bash loop would, then the next idle loop
// opens the circuit again because the counters survived.
func TestBreakerContinueBashOpenState(t *testing.T) {
	d, warnings := newBreakerDir(t)
	putBreakerFile(t, d, ralphdir.CircuitBreakerState, "bash_open.json")
	putBreakerFile(t, d, circuitBreakerHistory, "bash_history.json")
	c := defaultConfig()

	checkBashOpenLoaded(t, d)
	s := checkBashCooldown(t, d, c)
	checkBashReopened(t, d, s, c)
	if len(*warnings) != 0 {
		t.Errorf("warnings: %q", *warnings)
	}
}

// checkBashOpenLoaded: the bash loop's OPEN file loads field for field.
func checkBashOpenLoaded(t *testing.T, d *ralphdir.Dir) {
	t.Helper()
	s, err := loadBreaker(d)
	if err != nil {
		t.Fatal(err)
	}
	wantLoaded := breaker.State{
		State: breaker.Open, LastChange: time.Date(2026, 3, 1, 10, 20, 0, 0, time.UTC),
		ConsecutiveNoProgress: 3, LastProgressLoop: 4, TotalOpens: 1,
		Reason: "No recovery, opening circuit after 3 loops", CurrentLoop: 7,
		OpenedAt: time.Date(2026, 3, 1, 10, 20, 0, 0, time.UTC),
	}
	if diff := cmp.Diff(wantLoaded, s); diff != "" {
		t.Fatalf("loaded (-want +got):\n%s", diff)
	}
}

// checkBashCooldown: 10 minutes after opening Init keeps the circuit OPEN
// and rewrites nothing; 35 minutes after, it moves to HALF_OPEN and writes
// the files as the bash loop does. It returns that HALF_OPEN state.
func checkBashCooldown(t *testing.T, d *ralphdir.Dir, c breaker.Config) breaker.State {
	t.Helper()
	s, tn, err := initBreaker(d, time.Date(2026, 3, 1, 10, 30, 0, 0, time.UTC), c)
	if err != nil || tn != nil || s.State != breaker.Open {
		t.Fatalf("Init at 10:30 = %+v, %v, %v; want OPEN, no transition", s, tn, err)
	}
	if got := fileContent(t, d, ralphdir.CircuitBreakerState); got != breakerGolden(t, "bash_open.json") {
		t.Errorf("Init rewrote an unchanged state file:\n%s", got)
	}

	s, tn, err = initBreaker(d, time.Date(2026, 3, 1, 10, 55, 0, 0, time.UTC), c)
	if err != nil || tn == nil {
		t.Fatalf("Init at 10:55 = %v, %v; want a transition", tn, err)
	}
	if diff := cmp.Diff(breakerGolden(t, "bash_after_cooldown.json"), fileContent(t, d, ralphdir.CircuitBreakerState)); diff != "" {
		t.Errorf("state after cooldown (-bash +ours):\n%s", diff)
	}
	if diff := cmp.Diff(breakerGolden(t, "bash_history_after_cooldown.json"), fileContent(t, d, circuitBreakerHistory)); diff != "" {
		t.Errorf("history after cooldown (-bash +ours):\n%s", diff)
	}
	return s
}

// checkBashReopened: the new run's first loop makes no progress, so the
// HALF_OPEN circuit s opens again, and the history extends the bash
// loop's entries.
func checkBashReopened(t *testing.T, d *ralphdir.Dir, s breaker.State, c breaker.Config) {
	t.Helper()
	s, tn, err := recordAndSave(d, s, idle(1), time.Date(2026, 3, 1, 10, 56, 0, 0, time.UTC), c)
	if err != nil || tn == nil || tn.Reason != "No recovery, opening circuit after 4 loops" {
		t.Fatalf("RecordAndSave = %+v, %v; want HALF_OPEN -> OPEN 'No recovery, opening circuit after 4 loops'", tn, err)
	}
	reloaded, err := loadBreaker(d)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(s, reloaded); diff != "" {
		t.Errorf("saved and reloaded state differ (-saved +reloaded):\n%s", diff)
	}
	if reloaded.TotalOpens != 2 || reloaded.CurrentLoop != 1 || !reloaded.OpenedAt.Equal(time.Date(2026, 3, 1, 10, 56, 0, 0, time.UTC)) {
		t.Errorf("after re-opening: total_opens %d, current_loop %d, opened_at %v", reloaded.TotalOpens, reloaded.CurrentLoop, reloaded.OpenedAt)
	}
	hist := fileContent(t, d, circuitBreakerHistory)
	bashHist := breakerGolden(t, "bash_history_after_cooldown.json")
	if strings.Count(hist, `"timestamp"`) != 4 || !strings.HasPrefix(hist, bashHist[:len(bashHist)-3]) {
		t.Errorf("history does not extend the bash entries:\n%s", hist)
	}
}

// The bash loop's key order comes first, then the added keys; nothing is
// HTML-escaped and quotes, backslashes and newlines round-trip.
func TestBreakerSaveFormat(t *testing.T) {
	d, _ := newBreakerDir(t)
	s := breaker.State{
		State: breaker.Open, LastChange: brkAt(5), ConsecutiveNoProgress: 1, ConsecutiveSameError: 5,
		LastProgressLoop: 5, TotalOpens: 1, Reason: "Same error repeated in 5 consecutive loops",
		CurrentLoop: 5, OpenedAt: brkAt(5), TrippedBy: "same_error", NoProgressLoops: []int{5},
		Errors:           []breaker.ErrorLine{{Loop: 5, Line: `Error: "x" <y> & C:\tmp` + "\nnext"}},
		DeniedCommands:   []string{"Bash(a && b)"},
		LastOutputLength: 1234,
	}
	if err := SaveBreaker(d, s); err != nil {
		t.Fatal(err)
	}
	want := `{
  "state": "OPEN",
  "last_change": "2026-03-01T10:05:00+00:00",
  "consecutive_no_progress": 1,
  "consecutive_same_error": 5,
  "consecutive_permission_denials": 0,
  "consecutive_read_only_timeouts": 0,
  "last_progress_loop": 5,
  "total_opens": 1,
  "reason": "Same error repeated in 5 consecutive loops",
  "current_loop": 5,
  "opened_at": "2026-03-01T10:05:00+00:00",
  "tripped_by": "same_error",
  "no_progress_loops": [
    5
  ],
  "error_streak": [
    {
      "loop": 5,
      "line": "Error: \"x\" <y> & C:\\tmp\nnext"
    }
  ],
  "denied_commands": [
    "Bash(a && b)"
  ],
  "last_output_length": 1234
}
`
	if diff := cmp.Diff(want, fileContent(t, d, ralphdir.CircuitBreakerState)); diff != "" {
		t.Errorf("state file (-want +got):\n%s", diff)
	}
	got, err := loadBreaker(d)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(s, got); diff != "" {
		t.Errorf("round trip (-saved +loaded):\n%s", diff)
	}
}

// Files the breaker cannot use are moved aside with a warning and the
// breaker starts CLOSED; the bash loop kept a 0-byte file and wrote
// "state": "" into it, disabling itself for good.
func TestBreakerLoadQuarantinesUnusableFiles(t *testing.T) {
	for _, tc := range []struct{ name, content string }{
		{"empty", ""},
		{"blank", " \n"},
		{"truncated", `{"state": "OPEN", "consec`},
		{"not JSON", "OPEN\n"},
		{"empty object", "{}"},
		{"null", "null"},
		{"array", `["OPEN"]`},
		{"lower-case state", `{"state": "closed", "consecutive_no_progress": 0}`},
		{"state not a string", `{"state": 2}`},
		{"empty state", `{"state": ""}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, warnings := newBreakerDir(t)
			putBreaker(t, d, ralphdir.CircuitBreakerState, tc.content)
			s, tn, err := initBreaker(d, brkT0, defaultConfig())
			if err != nil || tn != nil {
				t.Fatalf("Init = %v, %v", tn, err)
			}
			if diff := cmp.Diff(breaker.Fresh(brkT0), s); diff != "" {
				t.Errorf("state (-want +got):\n%s", diff)
			}
			if len(*warnings) != 1 || !strings.Contains((*warnings)[0], ".circuit_breaker_state is corrupt") {
				t.Errorf("warnings = %q, want one about the corrupt state file", *warnings)
			}
			moved, _ := filepath.Glob(d.Path(ralphdir.CircuitBreakerState) + ".corrupt-*")
			if len(moved) != 1 {
				t.Fatalf("quarantined copies: %v, want 1", moved)
			}
			if b, _ := os.ReadFile(moved[0]); string(b) != tc.content {
				t.Errorf("quarantined copy = %q, want the original %q", b, tc.content)
			}
			if got := fileContent(t, d, ralphdir.CircuitBreakerState); got != breakerGolden(t, "bash_fresh.json") {
				t.Errorf("state file not recreated as a fresh CLOSED state:\n%s", got)
			}
		})
	}
}

// The bash loop reads counters with jq -r and shell arithmetic: strings
// holding numbers count, anything else is 0.
func TestBreakerLoadIsLenientAboutCounters(t *testing.T) {
	d, warnings := newBreakerDir(t)
	putBreaker(t, d, ralphdir.CircuitBreakerState, `{"state":"HALF_OPEN","last_change":"2026-03-01T10:00:00Z",
		"consecutive_no_progress":"2","consecutive_same_error":null,"consecutive_permission_denials":1.9,
		"last_progress_loop":-4,"total_opens":"abc","reason":7,"current_loop":1e12,"opened_at":"null",
		"tripped_by":"no_progress","no_progress_loops":"oops","error_streak":[{"loop":"3","line":"Error: x"}],
		"denied_commands":[1,"WebFetch"],"unknown_key":true}`)
	s, err := loadBreaker(d)
	if err != nil {
		t.Fatal(err)
	}
	want := breaker.State{
		State: "HALF_OPEN", LastChange: brkT0, ConsecutiveNoProgress: 2, ConsecutivePermissionDenials: 1,
		CurrentLoop: 1<<31 - 1, TrippedBy: "no_progress",
		Errors: []breaker.ErrorLine{{Loop: 3, Line: "Error: x"}}, DeniedCommands: []string{"WebFetch"},
	}
	if diff := cmp.Diff(want, s); diff != "" {
		t.Errorf("loaded (-want +got):\n%s", diff)
	}
	if len(*warnings) != 0 {
		t.Errorf("warnings = %q, want none", *warnings)
	}
}

// An empty history (which the bash loop kept, losing every later entry)
// or one that is not an array is moved aside and started over.
func TestBreakerHistoryRepair(t *testing.T) {
	for _, tc := range []struct{ name, content string }{
		{"empty", ""},
		{"object", `{"a":1}`},
		{"truncated", `[{"timestamp":`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, warnings := newBreakerDir(t)
			putBreaker(t, d, circuitBreakerHistory, tc.content)
			if err := appendBreakerHistory(d, breaker.Transition{From: breaker.Closed, To: "HALF_OPEN", Reason: "Monitoring: 2 loops without progress", Loop: 2, At: brkAt(2)}); err != nil {
				t.Fatal(err)
			}
			want := `[
  {
    "timestamp": "2026-03-01T10:02:00+00:00",
    "loop": 2,
    "from_state": "CLOSED",
    "to_state": "HALF_OPEN",
    "reason": "Monitoring: 2 loops without progress"
  }
]
`
			if diff := cmp.Diff(want, fileContent(t, d, circuitBreakerHistory)); diff != "" {
				t.Errorf("history (-want +got):\n%s", diff)
			}
			if len(*warnings) != 1 {
				t.Errorf("warnings = %q, want one", *warnings)
			}
		})
	}
}

func TestBreakerEnsureHistoryKeepsExisting(t *testing.T) {
	d, _ := newBreakerDir(t)
	putBreakerFile(t, d, circuitBreakerHistory, "bash_history.json")
	if err := ensureBreakerHistory(d); err != nil {
		t.Fatal(err)
	}
	if got := fileContent(t, d, circuitBreakerHistory); got != breakerGolden(t, "bash_history.json") {
		t.Errorf("EnsureHistory changed an existing history:\n%s", got)
	}
}

// --circuit-status looks without changing: an OPEN state past its
// cooldown stays OPEN on disk, and a missing state is created CLOSED.
// TestPeekWritesNothing: --circuit-status's read creates no state, keeps
// an old OPEN state as it is (no cooldown applied), and leaves a corrupt
// file in place, saying what is wrong with it.
func TestBreakerPeekWritesNothing(t *testing.T) {
	d, _ := newBreakerDir(t)
	s, read, damaged := peekBreaker(d, brkT0)
	if damaged != nil || s.State != breaker.Closed || read {
		t.Fatalf("Peek on an empty folder = %+v, %v", s, damaged)
	}
	if d.Exists(ralphdir.CircuitBreakerState) {
		t.Error("Peek created the state file")
	}

	putBreakerFile(t, d, ralphdir.CircuitBreakerState, "bash_open.json")
	s, read, damaged = peekBreaker(d, brkT0.Add(5*time.Hour))
	if damaged != nil || s.State != breaker.Open || !read {
		t.Fatalf("Peek on an old OPEN state = %+v, %v", s, damaged)
	}
	if got := fileContent(t, d, ralphdir.CircuitBreakerState); got != breakerGolden(t, "bash_open.json") {
		t.Errorf("Peek changed the state file:\n%s", got)
	}

	putBreaker(t, d, ralphdir.CircuitBreakerState, "{not json")
	s, read, damaged = peekBreaker(d, brkT0)
	if damaged == nil || s.State != breaker.Closed || read {
		t.Fatalf("Peek on a corrupt file = %+v, %v; want CLOSED and why", s, damaged)
	}
	if got := fileContent(t, d, ralphdir.CircuitBreakerState); got != "{not json" {
		t.Errorf("Peek moved or changed the corrupt file: %q", got)
	}
}

func TestBreakerRecordAndSaveWritesHistoryOnlyOnTransitions(t *testing.T) {
	d, _ := newBreakerDir(t)
	c := defaultConfig()
	s, _, err := initBreaker(d, brkT0, c)
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 3; i++ {
		if s, _, err = recordAndSave(d, s, idle(i), brkAt(i), c); err != nil {
			t.Fatal(err)
		}
	}
	hist := fileContent(t, d, circuitBreakerHistory)
	if n := strings.Count(hist, `"timestamp"`); n != 2 {
		t.Errorf("history has %d entries after CLOSED->HALF_OPEN->OPEN, want 2:\n%s", n, hist)
	}
	if err := s.Err(breaker.Config{}); err == nil {
		t.Error("Err() = nil on an OPEN state")
	}
}

// initBreaker is what the loop does with the breaker before every iteration: load
// it, apply the cooldown or auto-reset, and save the result (Save).
func initBreaker(d *ralphdir.Dir, now time.Time, c breaker.Config) (breaker.State, *breaker.Transition, error) {
	st := New(d, nil, nil, false)
	v, err := st.Load(now)
	if err != nil {
		return v.Breaker, nil, err
	}
	s, t := v.Breaker.Startup(now, c)
	return s, t, saveBreaker(st, v, s, t)
}

// recordAndSave is what the loop does after a successful call: Record,
// then save the result (Save), s being what was saved last.
func recordAndSave(d *ralphdir.Dir, s breaker.State, r breaker.LoopResult, now time.Time, c breaker.Config) (breaker.State, *breaker.Transition, error) {
	st := New(d, nil, nil, false)
	v, err := st.Load(now)
	if err != nil {
		return s, nil, err
	}
	n, t := s.Record(r, now, c)
	return n, t, saveBreaker(st, v, n, t)
}

// saveBreaker saves v with the breaker n and its move t (nil: none).
func saveBreaker(st *Store, v Kept, n breaker.State, t *breaker.Transition) error {
	v.Breaker = n
	if t != nil {
		v.BreakerMoves = []breaker.Transition{*t}
	}
	return st.Save(v)
}

// brkT0 is the breaker tests' start; brkAt(i) is i minutes later.
var brkT0 = time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)

func brkAt(i int) time.Time { return brkT0.Add(time.Duration(i) * time.Minute) }

// idle is a loop that changed nothing, with a steady output length.
func idle(loop int) breaker.LoopResult { return breaker.LoopResult{Loop: loop, OutputLength: 5000} }

// defaultConfig is the breaker's settings with nothing configured.
func defaultConfig() breaker.Config {
	return breaker.Config{
		NoProgressThreshold:       3,
		SameErrorThreshold:        5,
		OutputDeclineThreshold:    70,
		PermissionDenialThreshold: 2,
		ReadOnlyTimeoutThreshold:  2,
		Cooldown:                  30 * time.Minute,
	}
}
