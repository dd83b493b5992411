package breaker

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/ralphloop/ralph_loop/internal/ralphdir"
)

// newDir returns an empty .ralph/ folder and the warnings it emits.
func newDir(t *testing.T) (*ralphdir.Dir, *[]string) {
	t.Helper()
	var warnings []string
	d := ralphdir.New(filepath.Join(t.TempDir(), ".ralph"), func(m string) { warnings = append(warnings, m) })
	d.SetClock(func() time.Time { return t0 })
	if err := d.EnsureLayout(); err != nil {
		t.Fatal(err)
	}
	return d, &warnings
}

func put(t *testing.T, d *ralphdir.Dir, name, content string) {
	t.Helper()
	if err := os.WriteFile(d.Path(name), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func putFile(t *testing.T, d *ralphdir.Dir, name, testdata string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", testdata))
	if err != nil {
		t.Fatal(err)
	}
	put(t, d, name, string(b))
}

func content(t *testing.T, d *ralphdir.Dir, name string) string {
	t.Helper()
	b, err := os.ReadFile(d.Path(name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func golden(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The files of a new project must be byte-identical to what the bash
// loop's init writes (testdata made with the bash loop's jq calls).
func TestInitCreatesReferenceFiles(t *testing.T) {
	d, _ := newDir(t)
	s, tn, err := initBreaker(d, t0, defaultConfig())
	if err != nil || tn != nil {
		t.Fatalf("Init = %v, %v; want no error, no transition", tn, err)
	}
	if s.State != Closed {
		t.Errorf("state = %s, want CLOSED", s.State)
	}
	if diff := cmp.Diff(golden(t, "bash_fresh.json"), content(t, d, ralphdir.CircuitBreakerState)); diff != "" {
		t.Errorf("state file (-bash +ours):\n%s", diff)
	}
	if got := content(t, d, ralphdir.CircuitBreakerHistory); got != "[]\n" {
		t.Errorf("history file = %q, want %q", got, "[]\n")
	}
}

// A .ralph/ left OPEN by the bash loop is continued: after the cooldown
// Init writes exactly what the bash loop would, then the next idle loop
// opens the circuit again because the counters survived.
func TestContinueBashOpenState(t *testing.T) {
	d, warnings := newDir(t)
	putFile(t, d, ralphdir.CircuitBreakerState, "bash_open.json")
	putFile(t, d, ralphdir.CircuitBreakerHistory, "bash_history.json")
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
	s, err := Load(d)
	if err != nil {
		t.Fatal(err)
	}
	wantLoaded := State{
		State: Open, LastChange: time.Date(2026, 3, 1, 10, 20, 0, 0, time.UTC),
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
func checkBashCooldown(t *testing.T, d *ralphdir.Dir, c Config) State {
	t.Helper()
	s, tn, err := initBreaker(d, time.Date(2026, 3, 1, 10, 30, 0, 0, time.UTC), c)
	if err != nil || tn != nil || s.CanExecute() {
		t.Fatalf("Init at 10:30 = %+v, %v, %v; want OPEN, no transition", s, tn, err)
	}
	if got := content(t, d, ralphdir.CircuitBreakerState); got != golden(t, "bash_open.json") {
		t.Errorf("Init rewrote an unchanged state file:\n%s", got)
	}

	s, tn, err = initBreaker(d, time.Date(2026, 3, 1, 10, 55, 0, 0, time.UTC), c)
	if err != nil || tn == nil {
		t.Fatalf("Init at 10:55 = %v, %v; want a transition", tn, err)
	}
	if diff := cmp.Diff(golden(t, "bash_after_cooldown.json"), content(t, d, ralphdir.CircuitBreakerState)); diff != "" {
		t.Errorf("state after cooldown (-bash +ours):\n%s", diff)
	}
	if diff := cmp.Diff(golden(t, "bash_history_after_cooldown.json"), content(t, d, ralphdir.CircuitBreakerHistory)); diff != "" {
		t.Errorf("history after cooldown (-bash +ours):\n%s", diff)
	}
	return s
}

// checkBashReopened: the new run's first loop makes no progress, so the
// HALF_OPEN circuit s opens again, and the history extends the bash
// loop's entries.
func checkBashReopened(t *testing.T, d *ralphdir.Dir, s State, c Config) {
	t.Helper()
	s, tn, err := recordAndSave(d, s, idle(1), time.Date(2026, 3, 1, 10, 56, 0, 0, time.UTC), c)
	if err != nil || tn == nil || tn.Reason != "No recovery, opening circuit after 4 loops" {
		t.Fatalf("RecordAndSave = %+v, %v; want HALF_OPEN -> OPEN 'No recovery, opening circuit after 4 loops'", tn, err)
	}
	reloaded, err := Load(d)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(s, reloaded); diff != "" {
		t.Errorf("saved and reloaded state differ (-saved +reloaded):\n%s", diff)
	}
	if reloaded.TotalOpens != 2 || reloaded.CurrentLoop != 1 || !reloaded.OpenedAt.Equal(time.Date(2026, 3, 1, 10, 56, 0, 0, time.UTC)) {
		t.Errorf("after re-opening: total_opens %d, current_loop %d, opened_at %v", reloaded.TotalOpens, reloaded.CurrentLoop, reloaded.OpenedAt)
	}
	hist := content(t, d, ralphdir.CircuitBreakerHistory)
	bashHist := golden(t, "bash_history_after_cooldown.json")
	if strings.Count(hist, `"timestamp"`) != 4 || !strings.HasPrefix(hist, bashHist[:len(bashHist)-3]) {
		t.Errorf("history does not extend the bash entries:\n%s", hist)
	}
}

// The bash loop's key order comes first, then the added keys; nothing is
// HTML-escaped and quotes, backslashes and newlines round-trip.
func TestSaveFormat(t *testing.T) {
	d, _ := newDir(t)
	s := State{
		State: Open, LastChange: at(5), ConsecutiveNoProgress: 1, ConsecutiveSameError: 5,
		LastProgressLoop: 5, TotalOpens: 1, Reason: "Same error repeated in 5 consecutive loops",
		CurrentLoop: 5, OpenedAt: at(5), TrippedBy: SignalSameError, NoProgressLoops: []int{5},
		Errors:           []ErrorLine{{Loop: 5, Line: `Error: "x" <y> & C:\tmp` + "\nnext"}},
		DeniedCommands:   []string{"Bash(a && b)"},
		LastOutputLength: 1234,
	}
	if err := Save(d, s); err != nil {
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
	if diff := cmp.Diff(want, content(t, d, ralphdir.CircuitBreakerState)); diff != "" {
		t.Errorf("state file (-want +got):\n%s", diff)
	}
	got, err := Load(d)
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
func TestLoadQuarantinesUnusableFiles(t *testing.T) {
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
			d, warnings := newDir(t)
			put(t, d, ralphdir.CircuitBreakerState, tc.content)
			s, tn, err := initBreaker(d, t0, defaultConfig())
			if err != nil || tn != nil {
				t.Fatalf("Init = %v, %v", tn, err)
			}
			if diff := cmp.Diff(Fresh(t0), s); diff != "" {
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
			if got := content(t, d, ralphdir.CircuitBreakerState); got != golden(t, "bash_fresh.json") {
				t.Errorf("state file not recreated as a fresh CLOSED state:\n%s", got)
			}
		})
	}
}

// The bash loop reads counters with jq -r and shell arithmetic: strings
// holding numbers count, anything else is 0.
func TestLoadIsLenientAboutCounters(t *testing.T) {
	d, warnings := newDir(t)
	put(t, d, ralphdir.CircuitBreakerState, `{"state":"HALF_OPEN","last_change":"2026-03-01T10:00:00Z",
		"consecutive_no_progress":"2","consecutive_same_error":null,"consecutive_permission_denials":1.9,
		"last_progress_loop":-4,"total_opens":"abc","reason":7,"current_loop":1e12,"opened_at":"null",
		"tripped_by":"no_progress","no_progress_loops":"oops","error_streak":[{"loop":"3","line":"Error: x"}],
		"denied_commands":[1,"WebFetch"],"unknown_key":true}`)
	s, err := Load(d)
	if err != nil {
		t.Fatal(err)
	}
	want := State{
		State: HalfOpen, LastChange: t0, ConsecutiveNoProgress: 2, ConsecutivePermissionDenials: 1,
		CurrentLoop: 1<<31 - 1, TrippedBy: SignalNoProgress,
		Errors: []ErrorLine{{Loop: 3, Line: "Error: x"}}, DeniedCommands: []string{"WebFetch"},
	}
	if diff := cmp.Diff(want, s); diff != "" {
		t.Errorf("loaded (-want +got):\n%s", diff)
	}
	if len(*warnings) != 0 {
		t.Errorf("warnings = %q, want none", *warnings)
	}
}

func TestParseISO(t *testing.T) {
	want := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	for _, in := range []string{
		"2026-03-01T10:00:00+00:00", "2026-03-01T10:00:00Z", "2026-03-01T10:00:00.75Z",
		"2026-03-01T11:00:00+01:00", "2026-03-01T10:00:00+0000", "2026-03-01T10:00:00",
	} {
		if got := parseISO(in); !got.Equal(want) {
			t.Errorf("parseISO(%q) = %v, want %v", in, got, want)
		}
	}
	for _, in := range []string{"", "null", "yesterday", "2026-13-01T10:00:00Z"} {
		if got := parseISO(in); !got.IsZero() {
			t.Errorf("parseISO(%q) = %v, want the zero time", in, got)
		}
	}
}

// An empty history (which the bash loop kept, losing every later entry)
// or one that is not an array is moved aside and started over.
func TestHistoryRepair(t *testing.T) {
	for _, tc := range []struct{ name, content string }{
		{"empty", ""},
		{"object", `{"a":1}`},
		{"truncated", `[{"timestamp":`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, warnings := newDir(t)
			put(t, d, ralphdir.CircuitBreakerHistory, tc.content)
			if err := AppendHistory(d, Transition{From: Closed, To: HalfOpen, Reason: "Monitoring: 2 loops without progress", Loop: 2, At: at(2)}); err != nil {
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
			if diff := cmp.Diff(want, content(t, d, ralphdir.CircuitBreakerHistory)); diff != "" {
				t.Errorf("history (-want +got):\n%s", diff)
			}
			if len(*warnings) != 1 {
				t.Errorf("warnings = %q, want one", *warnings)
			}
		})
	}
}

func TestEnsureHistoryKeepsExisting(t *testing.T) {
	d, _ := newDir(t)
	putFile(t, d, ralphdir.CircuitBreakerHistory, "bash_history.json")
	if err := EnsureHistory(d); err != nil {
		t.Fatal(err)
	}
	if got := content(t, d, ralphdir.CircuitBreakerHistory); got != golden(t, "bash_history.json") {
		t.Errorf("EnsureHistory changed an existing history:\n%s", got)
	}
}

// --circuit-status looks without changing: an OPEN state past its
// cooldown stays OPEN on disk, and a missing state is created CLOSED.
// TestPeekWritesNothing: --circuit-status's read creates no state, keeps
// an old OPEN state as it is (no cooldown applied), and leaves a corrupt
// file in place, saying what is wrong with it.
func TestPeekWritesNothing(t *testing.T) {
	d, _ := newDir(t)
	s, damaged := Peek(d, t0)
	if damaged != nil || s.State != Closed {
		t.Fatalf("Peek on an empty folder = %+v, %v", s, damaged)
	}
	if d.Exists(ralphdir.CircuitBreakerState) {
		t.Error("Peek created the state file")
	}

	putFile(t, d, ralphdir.CircuitBreakerState, "bash_open.json")
	s, damaged = Peek(d, t0.Add(5*time.Hour))
	if damaged != nil || s.State != Open {
		t.Fatalf("Peek on an old OPEN state = %+v, %v", s, damaged)
	}
	if got := content(t, d, ralphdir.CircuitBreakerState); got != golden(t, "bash_open.json") {
		t.Errorf("Peek changed the state file:\n%s", got)
	}

	put(t, d, ralphdir.CircuitBreakerState, "{not json")
	s, damaged = Peek(d, t0)
	if damaged == nil || s.State != Closed {
		t.Fatalf("Peek on a corrupt file = %+v, %v; want CLOSED and why", s, damaged)
	}
	if got := content(t, d, ralphdir.CircuitBreakerState); got != "{not json" {
		t.Errorf("Peek moved or changed the corrupt file: %q", got)
	}
}

func TestRecordAndSaveWritesHistoryOnlyOnTransitions(t *testing.T) {
	d, _ := newDir(t)
	c := defaultConfig()
	s, _, err := initBreaker(d, t0, c)
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 3; i++ {
		if s, _, err = recordAndSave(d, s, idle(i), at(i), c); err != nil {
			t.Fatal(err)
		}
	}
	hist := content(t, d, ralphdir.CircuitBreakerHistory)
	if n := strings.Count(hist, `"timestamp"`); n != 2 {
		t.Errorf("history has %d entries after CLOSED->HALF_OPEN->OPEN, want 2:\n%s", n, hist)
	}
	if err := s.Err(Config{}); err == nil {
		t.Error("Err() = nil on an OPEN state")
	}
}

// initBreaker is what the loop does with the breaker before every iteration: load
// it, apply the cooldown or auto-reset, and keep the result (SaveStartup).
func initBreaker(d *ralphdir.Dir, now time.Time, c Config) (State, *Transition, error) {
	s, err := Load(d)
	if err != nil {
		return s, nil, err
	}
	created := s.LastChange.IsZero()
	s, t := s.Startup(now, c)
	return s, t, SaveStartup(d, s, t, created)
}

// recordAndSave is what the loop does after a successful call: Record,
// then keep the result (SaveRecorded).
func recordAndSave(d *ralphdir.Dir, s State, r LoopResult, now time.Time, c Config) (State, *Transition, error) {
	n, t := s.Record(r, now, c)
	return n, t, SaveRecorded(d, n, t)
}
