package breaker

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

var t0 = time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)

// at is the time of the i-th loop of a story: one minute apart.
func at(i int) time.Time { return t0.Add(time.Duration(i) * time.Minute) }

// Loop results used by the stories. Every loop prints the same amount of
// output unless a story says otherwise, so the output-decline rule stays
// out of the way.
const steadyOutput = 5000

func idle(loop int) LoopResult { return LoopResult{Loop: loop, OutputLength: steadyOutput} }
func worked(loop int) LoopResult {
	return LoopResult{Loop: loop, FilesChanged: 2, OutputLength: steadyOutput}
}
func withErr(r LoopResult, line string) LoopResult { r.HasErrors, r.ErrorLine = true, line; return r }
func denied(r LoopResult, cmds ...string) LoopResult {
	r.HasPermissionDenials, r.DeniedCommands = true, cmds
	return r
}
func readOnly(loop int) LoopResult { return LoopResult{Loop: loop, ReadOnlyTimeout: true} }

// summary is what a story checks about the final state.
type summary struct {
	State                          string
	NoProgress, SameError, Denials int
	ReadOnly, LastProgress, Opens  int
	Reason                         string
	TrippedBy                      string
	CurrentLoop                    int
	OpenedAt                       time.Time
}

func summarize(s State) summary {
	return summary{
		State: s.State, NoProgress: s.ConsecutiveNoProgress, SameError: s.ConsecutiveSameError,
		Denials: s.ConsecutivePermissionDenials, ReadOnly: s.ConsecutiveReadOnlyTimeouts,
		LastProgress: s.LastProgressLoop, Opens: s.TotalOpens, Reason: s.Reason,
		TrippedBy: s.TrippedBy, CurrentLoop: s.CurrentLoop, OpenedAt: s.OpenedAt,
	}
}

func tr(from, to, reason string, loop int) Transition {
	return Transition{From: from, To: to, Reason: reason, Loop: loop, At: at(loop)}
}

func TestRecordStories(t *testing.T) {
	def := defaultConfig()
	with := func(f func(*Config)) Config { c := defaultConfig(); f(&c); return c }
	threshold := with(func(c *Config) { c.CountPermissionDenials = true })
	monitoring := State{State: halfOpen, ConsecutiveNoProgress: 2, LastChange: t0, CurrentLoop: 2, TrippedBy: signalNoProgress, Reason: "Monitoring: 2 loops without progress"}

	tests := []struct {
		name  string
		cfg   Config
		start State
		loops []LoopResult // loop i happens at at(i)
		want  summary
		trans []Transition
	}{
		// CLOSED
		{
			name: "changed files are progress", cfg: def, start: Fresh(t0),
			loops: []LoopResult{idle(1), worked(2)},
			want:  summary{State: Closed, LastProgress: 2, CurrentLoop: 2},
		},
		{
			name: "completion signal without file changes is progress", cfg: def, start: Fresh(t0),
			loops: []LoopResult{idle(1), {Loop: 2, CompletionSignal: true, OutputLength: steadyOutput}},
			want:  summary{State: Closed, LastProgress: 2, CurrentLoop: 2},
		},
		{
			name: "files the agent reports as modified are progress", cfg: def, start: Fresh(t0),
			loops: []LoopResult{idle(1), {Loop: 2, ReportedFilesModified: 1, OutputLength: steadyOutput}},
			want:  summary{State: Closed, LastProgress: 2, CurrentLoop: 2},
		},
		{
			name: "one idle loop only counts", cfg: def, start: Fresh(t0),
			loops: []LoopResult{idle(1)},
			want:  summary{State: Closed, NoProgress: 1, CurrentLoop: 1},
		},
		{
			name: "two idle loops move to monitoring", cfg: def, start: Fresh(t0),
			loops: []LoopResult{idle(1), idle(2)},
			want:  summary{State: halfOpen, NoProgress: 2, Reason: "Monitoring: 2 loops without progress", TrippedBy: signalNoProgress, CurrentLoop: 2},
			trans: []Transition{tr(Closed, halfOpen, "Monitoring: 2 loops without progress", 2)},
		},
		{
			name: "three idle loops open via half-open with the bash loop's wording", cfg: def, start: Fresh(t0),
			loops: []LoopResult{idle(1), idle(2), idle(3)},
			want: summary{State: Open, NoProgress: 3, Opens: 1, Reason: "No recovery, opening circuit after 3 loops",
				TrippedBy: signalNoProgress, CurrentLoop: 3, OpenedAt: at(3)},
			trans: []Transition{
				tr(Closed, halfOpen, "Monitoring: 2 loops without progress", 2),
				tr(halfOpen, Open, "No recovery, opening circuit after 3 loops", 3),
			},
		},
		{
			name: "no-progress threshold 1 opens straight from closed",
			cfg:  with(func(c *Config) { c.NoProgressThreshold = 1 }), start: Fresh(t0),
			loops: []LoopResult{idle(1)},
			want: summary{State: Open, NoProgress: 1, Opens: 1, Reason: "No progress detected in 1 consecutive loops",
				TrippedBy: signalNoProgress, CurrentLoop: 1, OpenedAt: at(1)},
			trans: []Transition{tr(Closed, Open, "No progress detected in 1 consecutive loops", 1)},
		},
		{
			name: "no-progress threshold 2 beats the monitoring rule",
			cfg:  with(func(c *Config) { c.NoProgressThreshold = 2 }), start: Fresh(t0),
			loops: []LoopResult{idle(1), idle(2)},
			want: summary{State: Open, NoProgress: 2, Opens: 1, Reason: "No progress detected in 2 consecutive loops",
				TrippedBy: signalNoProgress, CurrentLoop: 2, OpenedAt: at(2)},
			trans: []Transition{tr(Closed, Open, "No progress detected in 2 consecutive loops", 2)},
		},
		{
			name: "five loops with errors open even with progress", cfg: def, start: Fresh(t0),
			loops: []LoopResult{
				withErr(worked(1), "Error: a"), withErr(worked(2), "Error: a"), withErr(worked(3), "Error: b"),
				withErr(worked(4), "Error: a"), withErr(worked(5), "Error: a"),
			},
			want: summary{State: Open, SameError: 5, LastProgress: 5, Opens: 1, Reason: "Same error repeated in 5 consecutive loops",
				TrippedBy: signalSameError, CurrentLoop: 5, OpenedAt: at(5)},
			trans: []Transition{tr(Closed, Open, "Same error repeated in 5 consecutive loops", 5)},
		},
		{
			name: "a clean loop resets the error count", cfg: def, start: Fresh(t0),
			loops: []LoopResult{
				withErr(worked(1), "Error: a"), withErr(worked(2), "Error: a"), withErr(worked(3), "Error: a"),
				withErr(worked(4), "Error: a"), worked(5), withErr(worked(6), "Error: a"),
			},
			want: summary{State: Closed, SameError: 1, LastProgress: 6, CurrentLoop: 6},
		},
		{
			name: "same-error threshold 0 switches the rule off",
			cfg:  with(func(c *Config) { c.SameErrorThreshold = 0 }), start: Fresh(t0),
			loops: []LoopResult{withErr(worked(1), "Error: a"), withErr(worked(2), "Error: a")},
			want:  summary{State: Closed, SameError: 2, LastProgress: 2, CurrentLoop: 2},
		},
		{
			name: "two denial loops open in threshold mode", cfg: threshold, start: Fresh(t0),
			loops: []LoopResult{denied(worked(1), "Bash(rm -rf build)"), denied(worked(2), "WebFetch")},
			want: summary{State: Open, Denials: 2, LastProgress: 2, Opens: 1, Reason: "Permission denied in 2 consecutive loops",
				TrippedBy: signalPermissionDenials, CurrentLoop: 2, OpenedAt: at(2)},
			trans: []Transition{tr(Closed, Open, "Permission denied in 2 consecutive loops", 2)},
		},
		{
			name: "denials do not count outside threshold mode", cfg: def, start: Fresh(t0),
			loops: []LoopResult{denied(idle(1), "WebFetch"), denied(idle(2), "WebFetch")},
			want:  summary{State: halfOpen, NoProgress: 2, Reason: "Monitoring: 2 loops without progress", TrippedBy: signalNoProgress, CurrentLoop: 2},
			trans: []Transition{tr(Closed, halfOpen, "Monitoring: 2 loops without progress", 2)},
		},
		{
			name: "a loop without denial resets the denial count", cfg: threshold, start: Fresh(t0),
			loops: []LoopResult{denied(worked(1), "WebFetch"), worked(2), denied(worked(3), "WebFetch")},
			want:  summary{State: Closed, Denials: 1, LastProgress: 3, CurrentLoop: 3},
		},
		{
			name: "two read-only timeouts open before the no-progress threshold", cfg: def, start: Fresh(t0),
			loops: []LoopResult{readOnly(1), readOnly(2)},
			want: summary{State: Open, NoProgress: 2, ReadOnly: 2, Opens: 1,
				Reason:    "Read-only timeout in 2 consecutive loops (agent stuck reading)",
				TrippedBy: signalReadOnlyTimeouts, CurrentLoop: 2, OpenedAt: at(2)},
			trans: []Transition{tr(Closed, Open, "Read-only timeout in 2 consecutive loops (agent stuck reading)", 2)},
		},
		{
			name: "a normal loop resets the read-only count", cfg: def, start: Fresh(t0),
			loops: []LoopResult{readOnly(1), worked(2), readOnly(3)},
			want:  summary{State: Closed, NoProgress: 1, ReadOnly: 1, LastProgress: 2, CurrentLoop: 3},
		},
		// Priority: all rules at threshold 1 in the same loop.
		{
			name:  "priority: permission denials first",
			cfg:   Config{NoProgressThreshold: 1, SameErrorThreshold: 1, PermissionDenialThreshold: 1, ReadOnlyTimeoutThreshold: 1, CountPermissionDenials: true},
			start: Fresh(t0),
			loops: []LoopResult{denied(withErr(readOnly(1), "Error: x"), "WebFetch")},
			want: summary{State: Open, NoProgress: 1, SameError: 1, Denials: 1, ReadOnly: 1, Opens: 1,
				Reason: "Permission denied in 1 consecutive loops", TrippedBy: signalPermissionDenials, CurrentLoop: 1, OpenedAt: at(1)},
			trans: []Transition{tr(Closed, Open, "Permission denied in 1 consecutive loops", 1)},
		},
		{
			name:  "priority: read-only timeouts before no progress",
			cfg:   Config{NoProgressThreshold: 1, SameErrorThreshold: 1, PermissionDenialThreshold: 1, ReadOnlyTimeoutThreshold: 1},
			start: Fresh(t0),
			loops: []LoopResult{withErr(readOnly(1), "Error: x")},
			want: summary{State: Open, NoProgress: 1, SameError: 1, ReadOnly: 1, Opens: 1,
				Reason:    "Read-only timeout in 1 consecutive loops (agent stuck reading)",
				TrippedBy: signalReadOnlyTimeouts, CurrentLoop: 1, OpenedAt: at(1)},
			trans: []Transition{tr(Closed, Open, "Read-only timeout in 1 consecutive loops (agent stuck reading)", 1)},
		},
		{
			name:  "priority: no progress before same error",
			cfg:   Config{NoProgressThreshold: 1, SameErrorThreshold: 1, PermissionDenialThreshold: 1, ReadOnlyTimeoutThreshold: 1},
			start: Fresh(t0),
			loops: []LoopResult{withErr(idle(1), "Error: x")},
			want: summary{State: Open, NoProgress: 1, SameError: 1, Opens: 1,
				Reason: "No progress detected in 1 consecutive loops", TrippedBy: signalNoProgress, CurrentLoop: 1, OpenedAt: at(1)},
			trans: []Transition{tr(Closed, Open, "No progress detected in 1 consecutive loops", 1)},
		},
		// Output decline (CB_OUTPUT_DECLINE_THRESHOLD).
		{
			name: "output down more than the threshold without progress: monitoring", cfg: def, start: Fresh(t0),
			loops: []LoopResult{{Loop: 1, FilesChanged: 1, OutputLength: 10000}, {Loop: 2, OutputLength: 1000}},
			want: summary{State: halfOpen, NoProgress: 1, LastProgress: 1,
				Reason:    "Monitoring: output declined by 90% without progress (10000 -> 1000 bytes)",
				TrippedBy: signalOutputDecline, CurrentLoop: 2},
			trans: []Transition{tr(Closed, halfOpen, "Monitoring: output declined by 90% without progress (10000 -> 1000 bytes)", 2)},
		},
		{
			name: "output decline then progress recovers", cfg: def, start: Fresh(t0),
			loops: []LoopResult{{Loop: 1, FilesChanged: 1, OutputLength: 10000}, {Loop: 2, OutputLength: 1000}, {Loop: 3, FilesChanged: 1, OutputLength: 900}},
			want:  summary{State: Closed, LastProgress: 3, Reason: "Progress detected, circuit recovered", CurrentLoop: 3},
			trans: []Transition{
				tr(Closed, halfOpen, "Monitoring: output declined by 90% without progress (10000 -> 1000 bytes)", 2),
				tr(halfOpen, Closed, "Progress detected, circuit recovered", 3),
			},
		},
		{
			name: "output down exactly the threshold is not a decline", cfg: def, start: Fresh(t0),
			loops: []LoopResult{{Loop: 1, FilesChanged: 1, OutputLength: 10000}, {Loop: 2, OutputLength: 3000}},
			want:  summary{State: Closed, NoProgress: 1, LastProgress: 1, CurrentLoop: 2},
		},
		{
			name: "short output with progress is fine", cfg: def, start: Fresh(t0),
			loops: []LoopResult{{Loop: 1, FilesChanged: 1, OutputLength: 10000}, {Loop: 2, FilesChanged: 1, OutputLength: 10}},
			want:  summary{State: Closed, LastProgress: 2, CurrentLoop: 2},
		},
		{
			name: "decline threshold 0 switches the rule off",
			cfg:  with(func(c *Config) { c.OutputDeclineThreshold = 0 }), start: Fresh(t0),
			loops: []LoopResult{{Loop: 1, FilesChanged: 1, OutputLength: 10000}, {Loop: 2, OutputLength: 1}},
			want:  summary{State: Closed, NoProgress: 1, LastProgress: 1, CurrentLoop: 2},
		},
		{
			name: "a read-only timeout is not an output decline",
			cfg:  with(func(c *Config) { c.ReadOnlyTimeoutThreshold = 5 }), start: Fresh(t0),
			loops: []LoopResult{{Loop: 1, FilesChanged: 1, OutputLength: 10000}, readOnly(2)},
			want:  summary{State: Closed, NoProgress: 1, ReadOnly: 1, LastProgress: 1, CurrentLoop: 2},
		},
		// HALF_OPEN
		{
			name: "half-open: progress closes", cfg: def, start: monitoring,
			loops: []LoopResult{worked(3)},
			want:  summary{State: Closed, LastProgress: 3, Reason: "Progress detected, circuit recovered", CurrentLoop: 3},
			trans: []Transition{tr(halfOpen, Closed, "Progress detected, circuit recovered", 3)},
		},
		{
			name: "half-open: a denial streak opens even with progress", cfg: threshold,
			start: func() State { s := monitoring; s.ConsecutivePermissionDenials = 1; return s }(),
			loops: []LoopResult{denied(worked(3), "WebFetch")},
			want: summary{State: Open, Denials: 2, LastProgress: 3, Opens: 1, Reason: "Permission denied in 2 consecutive loops",
				TrippedBy: signalPermissionDenials, CurrentLoop: 3, OpenedAt: at(3)},
			trans: []Transition{tr(halfOpen, Open, "Permission denied in 2 consecutive loops", 3)},
		},
		{
			name: "half-open: read-only timeouts open below a high no-progress threshold",
			cfg:  with(func(c *Config) { c.NoProgressThreshold = 99 }), start: monitoring,
			loops: []LoopResult{readOnly(3), readOnly(4)},
			want: summary{State: Open, NoProgress: 4, ReadOnly: 2, Opens: 1,
				Reason:    "Read-only timeout in 2 consecutive loops (agent stuck reading)",
				TrippedBy: signalReadOnlyTimeouts, CurrentLoop: 4, OpenedAt: at(4)},
			trans: []Transition{tr(halfOpen, Open, "Read-only timeout in 2 consecutive loops (agent stuck reading)", 4)},
		},
		{
			name: "half-open: the same-error rule is not checked (as in the bash loop)",
			cfg:  with(func(c *Config) { c.NoProgressThreshold = 99; c.SameErrorThreshold = 1 }), start: monitoring,
			loops: []LoopResult{withErr(idle(3), "Error: x")},
			want:  summary{State: halfOpen, NoProgress: 3, SameError: 1, TrippedBy: signalNoProgress, CurrentLoop: 3},
		},
		{
			name: "half-open: stays while below a high no-progress threshold, reason cleared",
			cfg:  with(func(c *Config) { c.NoProgressThreshold = 10 }), start: monitoring,
			loops: []LoopResult{idle(3), idle(4)},
			want:  summary{State: halfOpen, NoProgress: 4, TrippedBy: signalNoProgress, CurrentLoop: 4},
		},
		{
			name: "half-open: no recovery opens at the threshold", cfg: def, start: monitoring,
			loops: []LoopResult{idle(3)},
			want: summary{State: Open, NoProgress: 3, Opens: 1, Reason: "No recovery, opening circuit after 3 loops",
				TrippedBy: signalNoProgress, CurrentLoop: 3, OpenedAt: at(3)},
			trans: []Transition{tr(halfOpen, Open, "No recovery, opening circuit after 3 loops", 3)},
		},
		// OPEN
		{
			name: "open: stays open, counters move, opened_at and total_opens kept", cfg: def,
			start: State{State: Open, LastChange: at(1), OpenedAt: at(1), ConsecutiveNoProgress: 3, TotalOpens: 2, TrippedBy: signalNoProgress},
			loops: []LoopResult{idle(2), worked(3)},
			want: summary{State: Open, LastProgress: 3, Opens: 2, Reason: "Circuit breaker is open, execution halted",
				TrippedBy: signalNoProgress, CurrentLoop: 3, OpenedAt: at(1)},
		},
		{
			name: "open without opened_at keeps last_change as the opening time", cfg: def,
			start: State{State: Open, LastChange: at(1), TotalOpens: 1},
			loops: []LoopResult{idle(2)},
			want:  summary{State: Open, NoProgress: 1, Opens: 1, Reason: "Circuit breaker is open, execution halted", CurrentLoop: 2, OpenedAt: at(1)},
		},
		{
			name: "an unknown state string is treated as closed", cfg: def,
			start: State{State: "null"},
			loops: []LoopResult{idle(1), idle(2)},
			want:  summary{State: halfOpen, NoProgress: 2, Reason: "Monitoring: 2 loops without progress", TrippedBy: signalNoProgress, CurrentLoop: 2},
			trans: []Transition{tr(Closed, halfOpen, "Monitoring: 2 loops without progress", 2)},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.start
			var got []Transition
			for _, r := range tc.loops {
				var tn *Transition
				s, tn = s.Record(r, at(r.Loop), tc.cfg)
				if tn != nil {
					got = append(got, *tn)
				}
				if !s.LastChange.Equal(at(r.Loop)) {
					t.Errorf("loop %d: last_change = %v, want the record time %v", r.Loop, s.LastChange, at(r.Loop))
				}
			}
			if diff := cmp.Diff(tc.want, summarize(s)); diff != "" {
				t.Errorf("final state (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.trans, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("transitions (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRecordEvidence(t *testing.T) {
	c := defaultConfig()
	c.CountPermissionDenials = true
	c.SameErrorThreshold = 10
	c.NoProgressThreshold = 10
	s := Fresh(t0)
	loops := []LoopResult{
		worked(1),
		withErr(idle(2), "Error: cannot find module"),
		denied(withErr(LoopResult{Loop: 3, AskingQuestions: true, OutputLength: steadyOutput}, "Error: cannot find module"), "Bash(npm i)", "WebFetch"),
		denied(withErr(idle(4), "Error: other"), "WebFetch", "Bash(curl x)"),
	}
	for _, r := range loops {
		s, _ = s.Record(r, at(r.Loop), c)
	}
	want := struct {
		NoProgress, Questions []int
		Errors                []ErrorLine
		Denied                []string
	}{
		NoProgress: []int{2, 3, 4},
		Questions:  []int{3},
		Errors:     []ErrorLine{{2, "Error: cannot find module"}, {3, "Error: cannot find module"}, {4, "Error: other"}},
		Denied:     []string{"Bash(npm i)", "WebFetch", "Bash(curl x)"},
	}
	got := want
	got.NoProgress, got.Questions, got.Errors, got.Denied = s.NoProgressLoops, s.QuestionLoops, s.Errors, s.DeniedCommands
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("evidence (-want +got):\n%s", diff)
	}

	// Progress, a clean loop and a loop without denials clear their evidence.
	s, _ = s.Record(worked(5), at(5), c)
	if len(s.NoProgressLoops)+len(s.QuestionLoops)+len(s.Errors)+len(s.DeniedCommands) != 0 {
		t.Errorf("evidence after a clean loop with progress = %v %v %v %v, want none", s.NoProgressLoops, s.QuestionLoops, s.Errors, s.DeniedCommands)
	}
}

func TestRecordCapsEvidence(t *testing.T) {
	c := Config{} // every rule off
	s := Fresh(t0)
	long := string(make([]byte, 1000))
	for i := 1; i <= 50; i++ {
		s, _ = s.Record(withErr(idle(i), long), at(i), c)
	}
	if len(s.NoProgressLoops) != maxLoopsKept || s.NoProgressLoops[0] != 50-maxLoopsKept+1 {
		t.Errorf("no_progress_loops = %v, want the last %d loops", s.NoProgressLoops, maxLoopsKept)
	}
	if len(s.Errors) != maxErrorsKept || len(s.Errors[0].Line) > maxErrorLineLen {
		t.Errorf("error_streak has %d entries, first line %d bytes; want %d entries of at most %d bytes", len(s.Errors), len(s.Errors[0].Line), maxErrorsKept, maxErrorLineLen)
	}
	// Only the bash loop's fixed monitoring rule is left: HALF_OPEN, never OPEN.
	if s.State != halfOpen || s.ConsecutiveNoProgress != 50 {
		t.Errorf("with every rule off: state %s, no progress %d; want HALF_OPEN, 50", s.State, s.ConsecutiveNoProgress)
	}
}

func TestRecordDoesNotAliasCallerState(t *testing.T) {
	c := Config{}
	base := Fresh(t0)
	base.NoProgressLoops = make([]int, 1, 10)
	base.NoProgressLoops[0] = 1
	base.ConsecutiveNoProgress = 1
	a, _ := base.Record(idle(2), at(2), c)
	b, _ := base.Record(idle(3), at(3), c)
	if a.NoProgressLoops[1] != 2 || b.NoProgressLoops[1] != 3 || len(base.NoProgressLoops) != 1 {
		t.Errorf("records from one state share memory: a=%v b=%v base=%v", a.NoProgressLoops, b.NoProgressLoops, base.NoProgressLoops)
	}
}

func TestStartup(t *testing.T) {
	def := defaultConfig()
	with := func(f func(*Config)) Config { c := defaultConfig(); f(&c); return c }
	now := t0.Add(2 * time.Hour)
	open := func(openedAgo time.Duration) State {
		return State{
			State: Open, LastChange: now.Add(-openedAgo), OpenedAt: now.Add(-openedAgo),
			ConsecutiveNoProgress: 3, LastProgressLoop: 4, TotalOpens: 2, CurrentLoop: 7,
			Reason: "No recovery, opening circuit after 3 loops", TrippedBy: signalNoProgress,
		}
	}
	halfOpened := func(openedAgo time.Duration, elapsed string) State {
		s := open(openedAgo)
		s.State, s.LastChange, s.Reason = halfOpen, now, "Cooldown recovery: "+elapsed+" elapsed"
		return s
	}
	tests := []struct {
		name  string
		cfg   Config
		start State
		want  State
		trans *Transition
	}{
		{name: "closed is left alone", cfg: def, start: Fresh(t0), want: Fresh(t0)},
		{name: "a state without last_change gets one", cfg: def, start: State{State: Closed}, want: Fresh(now)},
		{name: "half-open is left alone", cfg: def, start: halfOpened(time.Hour, "60m"), want: halfOpened(time.Hour, "60m")},
		{name: "open 5 minutes: stays open", cfg: def, start: open(5 * time.Minute), want: open(5 * time.Minute)},
		{name: "open 29m59s: stays open", cfg: def, start: open(30*time.Minute - time.Second), want: open(30*time.Minute - time.Second)},
		{
			name: "open exactly the cooldown: half-open", cfg: def, start: open(30 * time.Minute),
			want:  halfOpened(30*time.Minute, "30m"),
			trans: &Transition{From: Open, To: halfOpen, Reason: "Cooldown elapsed (30m >= 30m)", Loop: 7, At: now},
		},
		{
			name: "open an hour: half-open, counters and opened_at kept", cfg: def, start: open(time.Hour),
			want:  halfOpened(time.Hour, "60m"),
			trans: &Transition{From: Open, To: halfOpen, Reason: "Cooldown elapsed (60m >= 30m)", Loop: 7, At: now},
		},
		{
			name: "cooldown 0 recovers at once", cfg: with(func(c *Config) { c.Cooldown = 0 }), start: open(0),
			want:  halfOpened(0, "0m"),
			trans: &Transition{From: Open, To: halfOpen, Reason: "Cooldown elapsed (0m >= 0m)", Loop: 7, At: now},
		},
		{
			name: "clock 30 s behind opened_at still counts as 0 minutes", cfg: with(func(c *Config) { c.Cooldown = 0 }), start: open(-30 * time.Second),
			want:  halfOpened(-30*time.Second, "0m"),
			trans: &Transition{From: Open, To: halfOpen, Reason: "Cooldown elapsed (0m >= 0m)", Loop: 7, At: now},
		},
		{
			name: "opened_at two minutes in the future: stays open", cfg: with(func(c *Config) { c.Cooldown = 0 }),
			start: open(-2 * time.Minute), want: open(-2 * time.Minute),
		},
		{
			name: "no opened_at: the cooldown counts from last_change", cfg: def,
			start: func() State { s := open(40 * time.Minute); s.OpenedAt = time.Time{}; return s }(),
			want: func() State {
				s := halfOpened(40*time.Minute, "40m")
				s.OpenedAt = time.Time{}
				return s
			}(),
			trans: &Transition{From: Open, To: halfOpen, Reason: "Cooldown elapsed (40m >= 30m)", Loop: 7, At: now},
		},
		{
			name: "no usable time at all: stamped now, stays open", cfg: def,
			start: State{State: Open, TotalOpens: 1},
			want:  State{State: Open, TotalOpens: 1, LastChange: now},
		},
		{
			name: "auto-reset closes, keeps total_opens, drops the rest", cfg: with(func(c *Config) { c.AutoReset = true }),
			start: open(time.Minute),
			want:  State{State: Closed, LastChange: now, TotalOpens: 2, Reason: "Auto-reset on startup"},
			trans: &Transition{From: Open, To: Closed, Reason: "Auto-reset on startup (CB_AUTO_RESET=true)", Loop: 7, At: now},
		},
		{
			name: "auto-reset wins over an elapsed cooldown", cfg: with(func(c *Config) { c.AutoReset = true }),
			start: open(time.Hour),
			want:  State{State: Closed, LastChange: now, TotalOpens: 2, Reason: "Auto-reset on startup"},
			trans: &Transition{From: Open, To: Closed, Reason: "Auto-reset on startup (CB_AUTO_RESET=true)", Loop: 7, At: now},
		},
		{
			name: "auto-reset leaves a closed circuit alone", cfg: with(func(c *Config) { c.AutoReset = true }),
			start: Fresh(t0), want: Fresh(t0),
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, trans := tc.start.Startup(now, tc.cfg)
			if diff := cmp.Diff(tc.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("state (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.trans, trans); diff != "" {
				t.Errorf("transition (-want +got):\n%s", diff)
			}
		})
	}
}

// A full run across restarts: trip, cooldown, one more idle loop re-opens
// at once because the counters survive the cooldown (as the bash loop does),
// then progress after the next cooldown closes it.
func TestCooldownStory(t *testing.T) {
	c := defaultConfig()
	s := Fresh(t0)
	var got []string
	note := func(tn *Transition) {
		if tn != nil {
			got = append(got, tn.From+">"+tn.To+": "+tn.Reason)
		}
	}
	for i := 1; i <= 3; i++ {
		var tn *Transition
		s, tn = s.Record(idle(i), at(i), c)
		note(tn)
	}
	s, tn := s.Startup(at(3).Add(10*time.Minute), c) // restarted too early
	note(tn)
	if s.Err(c) == nil {
		t.Fatal("Err = nil 10 minutes after opening, want the open circuit")
	}
	s, tn = s.Startup(at(3).Add(31*time.Minute), c)
	note(tn)
	if err := s.Err(c); err != nil {
		t.Fatalf("Err = %v after the cooldown, want nil", err)
	}
	s, tn = s.Record(idle(1), at(3).Add(32*time.Minute), c) // new run, loop numbers restart
	note(tn)
	s, tn = s.Startup(at(3).Add(70*time.Minute), c)
	note(tn)
	s, tn = s.Record(worked(1), at(3).Add(71*time.Minute), c)
	note(tn)
	want := []string{
		"CLOSED>HALF_OPEN: Monitoring: 2 loops without progress",
		"HALF_OPEN>OPEN: No recovery, opening circuit after 3 loops",
		"OPEN>HALF_OPEN: Cooldown elapsed (31m >= 30m)",
		"HALF_OPEN>OPEN: No recovery, opening circuit after 4 loops",
		"OPEN>HALF_OPEN: Cooldown elapsed (38m >= 30m)",
		"HALF_OPEN>CLOSED: Progress detected, circuit recovered",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("transitions (-want +got):\n%s", diff)
	}
	if s.TotalOpens != 2 || s.State != Closed || !s.OpenedAt.IsZero() || s.TrippedBy != "" {
		t.Errorf("final: state %s, total_opens %d, opened_at %v, tripped_by %q; want CLOSED, 2, none, none", s.State, s.TotalOpens, s.OpenedAt, s.TrippedBy)
	}
}

func TestReset(t *testing.T) {
	if got, want := Reset("", t0), (State{State: Closed, LastChange: t0, Reason: "Manual reset"}); !cmp.Equal(got, want) {
		t.Errorf("Reset(\"\") = %+v, want %+v", got, want)
	}
	got := Reset("Manual reset via command line", t0.Add(1500*time.Millisecond))
	if got.Reason != "Manual reset via command line" || !got.LastChange.Equal(t0.Add(time.Second)) || got.TotalOpens != 0 {
		t.Errorf("Reset(reason) = %+v", got)
	}
}
