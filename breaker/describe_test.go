package breaker

import (
	"encoding/json"
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// The state the cli-circuit-status conformance scenario writes (no
// consecutive_read_only_timeouts, as an older bash loop wrote it).
const scenarioOpen = `{"state":"OPEN","last_change":"2026-03-01T10:00:00+00:00","opened_at":"2026-03-01T10:00:00+00:00",
"consecutive_no_progress":4,"consecutive_same_error":0,"consecutive_permission_denials":0,"last_progress_loop":2,
"total_opens":3,"reason":"No progress detected in 4 consecutive loops","current_loop":6}`

func TestDescribeReferenceBlock(t *testing.T) {
	var s State
	if err := json.Unmarshal([]byte(scenarioOpen), &s); err != nil {
		t.Fatal(err)
	}
	got := Describe(s, t0.Add(12*time.Minute), defaultConfig())
	wantHead := []string{
		"╔════════════════════════════════════════════════════════════╗",
		"║           Circuit Breaker Status                           ║", // the bash loop's is one column short
		"╚════════════════════════════════════════════════════════════╝",
		"State:                 🚨 OPEN",
		"Reason:                No progress detected in 4 consecutive loops",
		"Loops since progress: 4",
		"Last progress:        Loop #2",
		"Current loop:         #6",
		"Total opens:          3",
	}
	if diff := cmp.Diff(wantHead, got[:len(wantHead)]); diff != "" {
		t.Errorf("bash loop's block (-want +got):\n%s", diff)
	}
	text := strings.Join(got, "\n")
	for _, re := range []string{
		`Loops since progress:[[:space:]]+4`, // what the conformance scenario greps
		`Total opens:[[:space:]]+3`,
		`(?m)^Tripped by: +no progress \(CB_NO_PROGRESS_THRESHOLD=3\)$`, // read back from the bash reason
		`(?m)^Opened at: +2026-03-01T10:00:00\+00:00$`,
		`(?m)^Cooldown: +18m left of 30m`,
		`(?m)^Next step: +check whether \.ralph/@fix_plan\.md`,
		`(?m)^To continue now: +ralph_loop --reset-circuit$`,
	} {
		if !regexp.MustCompile(re).MatchString(text) {
			t.Errorf("no line matching %q in:\n%s", re, text)
		}
	}
	if got[len(got)-1] != "" {
		t.Errorf("last line = %q, want the bash loop's trailing empty line", got[len(got)-1])
	}
}

func TestDescribeStates(t *testing.T) {
	c := defaultConfig()
	c.CountPermissionDenials = true
	now := t0.Add(time.Hour)
	tests := []struct {
		name  string
		s     State
		cfg   Config
		want  []string // regexps, each must match a line
		avoid []string
	}{
		{
			name: "fresh closed", s: Fresh(t0), cfg: c,
			want: []string{
				`^State: +✅ CLOSED$`, `^Current loop: +N/A$`,
				`^Counters: +no progress 0/3, errors 0/5, read-only timeouts 0/2, permission denials 0/2$`,
				`^Next step: +none; the loop runs normally$`,
			},
			avoid: []string{`^Tripped by:`, `^To continue now:`},
		},
		{
			name: "half-open with its evidence",
			s: State{State: halfOpen, LastChange: t0, ConsecutiveNoProgress: 2, CurrentLoop: 5, TrippedBy: signalNoProgress,
				Reason: "Monitoring: 2 loops without progress", NoProgressLoops: []int{4, 5}, QuestionLoops: []int{5}},
			cfg: c,
			want: []string{
				`^State: +⚠️  HALF_OPEN$`,
				`^Tripped by: +no progress`,
				`^No progress in: +loops 4, 5 `,
				`^Questions asked in: +loops 5; nobody answers them`,
				`^Next step: +none yet: a loop with progress closes the circuit; 1 more without progress open it$`,
			},
		},
		{
			name: "open on repeated errors",
			s: State{State: Open, LastChange: t0, OpenedAt: t0, ConsecutiveSameError: 3, TrippedBy: signalSameError,
				Reason: "Same error repeated in 3 consecutive loops",
				Errors: []ErrorLine{{3, "Error: boom"}, {4, "Error: boom"}, {5, "Error: boom"}}},
			cfg: c,
			want: []string{
				`^Last error: +loop 5: Error: boom \(the same line in the last 3 loops\)$`,
				`^Cooldown: +over \(60m >= 30m\); the next run starts in HALF_OPEN$`,
				`^Next step: +fix the error shown above`,
			},
		},
		{
			name: "open on denials with auto-reset on",
			s: State{State: Open, LastChange: t0, OpenedAt: t0, ConsecutivePermissionDenials: 2, TrippedBy: signalPermissionDenials,
				Reason: "Permission denied in 2 consecutive loops", DeniedCommands: []string{"Bash(rm -rf /)", "WebFetch"}},
			cfg: func() Config { x := c; x.AutoReset = true; return x }(),
			want: []string{
				`^Denied: +Bash\(rm -rf /\), WebFetch$`,
				`^Cooldown: +skipped: CB_AUTO_RESET=true`,
				`^Next step: +allow the denied tools \(ALLOWED_TOOLS in \.ralph/\.ralphrc\)`,
			},
		},
		{
			name: "open with opened_at in the future",
			s:    State{State: Open, LastChange: now.Add(time.Hour), OpenedAt: now.Add(time.Hour), Reason: "Read-only timeout in 2 consecutive loops (agent stuck reading)"},
			cfg:  c,
			want: []string{
				`^Tripped by: +read-only timeouts`,
				`^Cooldown: +opened_at is in the future`,
				`^Next step: +split the current task`,
			},
		},
		{
			name: "denials not counted outside threshold mode",
			s:    Fresh(t0), cfg: defaultConfig(),
			want: []string{`permission denials not counted \(PERMISSION_DENIAL_MODE is not threshold\)$`},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			lines := Describe(tc.s, now, tc.cfg)
			match := func(re string) bool {
				for _, l := range lines {
					if regexp.MustCompile(re).MatchString(l) {
						return true
					}
				}
				return false
			}
			for _, re := range tc.want {
				if !match(re) {
					t.Errorf("no line matching %q in:\n%s", re, strings.Join(lines, "\n"))
				}
			}
			for _, re := range tc.avoid {
				if match(re) {
					t.Errorf("unexpected line matching %q in:\n%s", re, strings.Join(lines, "\n"))
				}
			}
		})
	}
}

func TestSignalFromBashReason(t *testing.T) {
	for reason, want := range map[string]tripSignal{
		"Permission denied in 2 consecutive loops":                            signalPermissionDenials,
		"Read-only timeout in 2 consecutive loops (agent stuck reading)":      signalReadOnlyTimeouts,
		"No progress detected in 3 consecutive loops":                         signalNoProgress,
		"No recovery, opening circuit after 3 loops":                          signalNoProgress,
		"Monitoring: 2 loops without progress":                                signalNoProgress,
		"Monitoring: output declined by 90% without progress (10 -> 1 bytes)": signalOutputDecline,
		"Same error repeated in 5 consecutive loops":                          signalSameError,
		"Cooldown recovery: 35m elapsed":                                      "",
		"":                                                                    "",
	} {
		if got := (State{Reason: reason}).signal(); got != want {
			t.Errorf("signal for %q = %q, want %q", reason, got, want)
		}
	}
}

func TestTransitionLines(t *testing.T) {
	for _, tc := range []struct {
		to   string
		want []string
	}{
		{Open, []string{"🚨 CIRCUIT BREAKER OPENED", "Reason: r"}},
		{halfOpen, []string{"⚠️  CIRCUIT BREAKER: Monitoring Mode", "Reason: r"}},
		{Closed, []string{"✅ CIRCUIT BREAKER: Normal Operation", "Reason: r"}},
		{"null", nil},
	} {
		if diff := cmp.Diff(tc.want, Transition{To: tc.to, Reason: "r"}.Lines()); diff != "" {
			t.Errorf("Lines to %s (-want +got):\n%s", tc.to, diff)
		}
	}
}

func TestErr(t *testing.T) {
	if err := Fresh(t0).Err(Config{}); err != nil {
		t.Errorf("CLOSED Err() = %v", err)
	}
	err := State{State: Open, Reason: "No progress detected in 3 consecutive loops"}.Err(Config{})
	if !errors.Is(err, ErrOpen) {
		t.Errorf("errors.Is(%v, ErrOpen) = false", err)
	}
	want := "circuit breaker open: No progress detected in 3 consecutive loops (run ralph_loop --reset-circuit to continue)"
	if err == nil || err.Error() != want {
		t.Errorf("Err() = %v, want %q", err, want)
	}
}

func TestHalted(t *testing.T) {
	s := State{State: Open, LastChange: t0, OpenedAt: t0, Reason: "x"}
	text := strings.Join(Halted(s, t0, defaultConfig()), "\n")
	for _, want := range []string{"EXECUTION HALTED: Circuit Breaker Opened", ".ralph/@fix_plan.md", "ralph_loop --reset-circuit", "State:                 🚨 OPEN"} {
		if !strings.Contains(text, want) {
			t.Errorf("Halted text lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, ".ralph/fix_plan.md") {
		t.Errorf("Halted text names .ralph/fix_plan.md instead of .ralph/@fix_plan.md")
	}
}

// Loop numbers restart each run: a last progress in an earlier run is
// said to be so, and a streak that spans runs is said by run, so that
// "Last progress: Loop #1" never stands beside "No progress in: loops 1,
// 2, 3" as if both were the same run's (issue 41).
func TestDescribeProgressAcrossRuns(t *testing.T) {
	for _, tc := range []struct {
		name      string
		last, cur int
		loops     []int
		progress  string
		streak    string // "" no such line
	}{
		{"same run", 2, 5, []int{3, 4, 5}, "Loop #2", "loops 3, 4, 5 ("},
		{"this run's loop 1 after an earlier run's", 1, 3, []int{1, 2, 3}, "Loop #1 of an earlier run", "loops 1, 2, 3 ("},
		{"earlier run's loop 4, this run from 1", 4, 2, []int{1, 2}, "Loop #4 of an earlier run", "loops 1, 2 ("},
		{"streak across two runs", 3, 2, []int{4, 5, 1, 2}, "Loop #3 of an earlier run", "loops 4, 5 of an earlier run, then 1, 2 ("},
		{"streak across three runs", 3, 1, []int{4, 1, 2, 1}, "Loop #3 of an earlier run", "loops 4 of an earlier run, then 1, 2 of a later run, then 1 ("},
		{"no streak recorded, a later run's current loop", 5, 2, nil, "Loop #5 of an earlier run", ""},
		{"no streak recorded, same run", 5, 5, nil, "Loop #5", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := State{State: Closed, LastProgressLoop: tc.last, CurrentLoop: tc.cur, NoProgressLoops: tc.loops, ConsecutiveNoProgress: len(tc.loops)}
			text := strings.Join(Describe(s, t0, defaultConfig()), "\n")
			if want := "Last progress:        " + tc.progress + "\n"; !strings.Contains(text, want) {
				t.Errorf("want %q in:\n%s", want, text)
			}
			if tc.streak != "" && !strings.Contains(text, "No progress in:       "+tc.streak) {
				t.Errorf("want No progress in %q in:\n%s", tc.streak, text)
			}
		})
	}
}
