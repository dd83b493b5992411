package breaker

import (
	"fmt"
	"slices"
	"time"
)

// Config holds the breaker's settings. The config package resolves them
// (defaults < .ralphrc < environment < flags) and builds this value in one
// place, (*config.Config).Breaker; the breaker only reads them.
// A threshold of 0 or less switches its rule off.
type Config struct {
	NoProgressThreshold       int           // CB_NO_PROGRESS_THRESHOLD (3)
	SameErrorThreshold        int           // CB_SAME_ERROR_THRESHOLD (5)
	OutputDeclineThreshold    int           // CB_OUTPUT_DECLINE_THRESHOLD (70, percent; >= 100 also switches it off)
	PermissionDenialThreshold int           // CB_PERMISSION_DENIAL_THRESHOLD (2)
	ReadOnlyTimeoutThreshold  int           // CB_READ_ONLY_TIMEOUT_THRESHOLD (2)
	Cooldown                  time.Duration // CB_COOLDOWN_MINUTES (30m); counted in whole minutes
	AutoReset                 bool          // CB_AUTO_RESET=true or --auto-reset-circuit
	// CountPermissionDenials is true when PERMISSION_DENIAL_MODE=threshold;
	// in the other modes denials never count.
	CountPermissionDenials bool
	// ResetCommand is what a user runs to close an OPEN circuit by hand,
	// as it works where the loop was started ("" for DefaultResetCommand):
	// "bash .ralph/ralph_loop.sh --reset-circuit" when it was started
	// through bmalph's shim (RALPH_SHIM).
	ResetCommand string
}

// hardHalfOpenAt is the bash loop's fixed "monitoring" point: two loops
// without progress move CLOSED to HALF_OPEN whatever the thresholds are.
const hardHalfOpenAt = 2

// LoopResult is what one successful agent call tells the breaker. Failed
// calls (crash, non-zero exit, timeout, usage limit) are never recorded;
// see the package documentation.
type LoopResult struct {
	Loop int // loop number

	// Progress: any of these makes the loop count as progress, in this order.
	FilesChanged          int  // files changed since the loop started (git: commits ∪ unstaged ∪ staged)
	CompletionSignal      bool // analysis has_completion_signal, or exit_signal true
	ReportedFilesModified int  // analysis files_modified (the agent's own count)

	HasErrors bool   // the output had error lines (same-error rule)
	ErrorLine string // the first of them, kept as evidence

	OutputLength int // bytes of agent output; negative = unknown (output-decline rule)

	HasPermissionDenials bool     // the agent was denied a tool
	DeniedCommands       []string // what was denied, e.g. "Bash(rm -rf build)"

	AskingQuestions bool // the agent asked the user something (evidence only; still no progress)

	// ReadOnlyTimeout marks a call the write heartbeat stopped because the
	// agent wrote nothing in time. The engine records it with no analysis:
	// it counts as no progress and towards the read-only rule.
	ReadOnlyTimeout bool
}

// progress reports whether r counts as progress, as the bash loop decides.
func (r LoopResult) progress() bool {
	return r.FilesChanged > 0 || r.CompletionSignal || r.ReportedFilesModified > 0
}

// Transition is one change of state, as it goes into
// .circuit_breaker_history and onto the console banner.
type Transition struct {
	From, To string
	Reason   string
	Loop     int
	At       time.Time
}

// Record feeds one successful loop into the breaker and returns the new
// state and, if the state changed, the transition. As the bash loop does,
// it updates the counters first, then lets the first rule of the table
// below that applies to the current state decide.
func (s State) Record(r LoopResult, now time.Time, c Config) (State, *Transition) {
	now = stamp(now)
	prev := s.State
	if !validState(prev) {
		prev = Closed // Load never yields this; a hand-built State starts CLOSED
	}
	n := s.clone()
	n.State = prev
	progress := r.progress()
	n.count(r, c, progress)
	decline, declined := outputDecline(s.LastOutputLength, r, progress, c)
	if r.OutputLength >= 0 && !r.ReadOnlyTimeout {
		n.LastOutputLength = r.OutputLength
	}

	f := facts{n: &n, c: c, progress: progress, declined: declined, decline: decline, prevLen: s.LastOutputLength, outLen: r.OutputLength}
	to, reason, signal := prev, "", tripSignal("")
	if rl := matchRule(prev, f); rl != nil {
		to, reason, signal = rl.to, rl.reason(f), rl.signal
	}
	n.enter(prev, to, signal, s.LastChange, now)
	n.Reason = reason
	n.CurrentLoop = r.Loop

	if to == prev {
		return n, nil
	}
	return n, &Transition{From: prev, To: to, Reason: reason, Loop: r.Loop, At: now}
}

// count updates the streak counters and their evidence for one loop; each
// counter is independent of the others.
func (n *State) count(r LoopResult, c Config, progress bool) {
	if r.ReadOnlyTimeout {
		n.ConsecutiveReadOnlyTimeouts++
	} else {
		n.ConsecutiveReadOnlyTimeouts = 0
	}

	if c.CountPermissionDenials && r.HasPermissionDenials {
		n.ConsecutivePermissionDenials++
		for _, d := range r.DeniedCommands {
			if d != "" && !slices.Contains(n.DeniedCommands, d) {
				n.DeniedCommands = append(n.DeniedCommands, d)
			}
		}
		n.DeniedCommands = keepLast(n.DeniedCommands, maxDeniedKept)
	} else {
		n.ConsecutivePermissionDenials = 0
		n.DeniedCommands = nil
	}

	if progress {
		n.ConsecutiveNoProgress = 0
		n.LastProgressLoop = r.Loop
		n.NoProgressLoops, n.QuestionLoops = nil, nil
	} else {
		n.ConsecutiveNoProgress++
		n.NoProgressLoops = keepLast(append(n.NoProgressLoops, r.Loop), maxLoopsKept)
		if r.AskingQuestions {
			n.QuestionLoops = keepLast(append(n.QuestionLoops, r.Loop), maxLoopsKept)
		}
	}

	if r.HasErrors {
		n.ConsecutiveSameError++
		n.Errors = keepLast(append(n.Errors, ErrorLine{Loop: r.Loop, Line: clip(r.ErrorLine, maxErrorLineLen)}), maxErrorsKept)
	} else {
		n.ConsecutiveSameError = 0
		n.Errors = nil
	}
}

// enter moves n from prev to the state to: it keeps tripped_by and
// opened_at consistent with the new state and stamps the change.
// lastChange is the state's previous last_change, the opening time of a
// file written before opened_at existed.
func (n *State) enter(prev, to string, signal tripSignal, lastChange, now time.Time) {
	switch {
	case to == Closed:
		n.TrippedBy = ""
	case signal != "":
		n.TrippedBy = string(signal)
	}
	switch {
	case to == Open && prev != Open:
		n.TotalOpens++
		n.OpenedAt = now
	case to == Open:
		if n.OpenedAt.IsZero() {
			n.OpenedAt = lastChange
		}
	default:
		n.OpenedAt = time.Time{}
	}
	n.State = to
	n.LastChange = now
}

// facts is what the rules look at: the counters after the loop was
// counted, and the loop's own measurements.
type facts struct {
	n               *State
	c               Config
	progress        bool
	declined        bool
	decline         int // percent the output shrank by
	prevLen, outLen int // output bytes of the previous and of this loop
}

// reached reports whether a streak meets a threshold; a threshold of 0 or
// less switches its rule off.
func reached(count, threshold int) bool { return threshold > 0 && count >= threshold }

// rule is one transition: in any of the states from, when holds, the
// breaker moves to `to`, gives reason and, leaving CLOSED, records signal
// as tripped_by.
type rule struct {
	from   []string
	to     string
	signal tripSignal
	when   func(facts) bool
	reason func(facts) string
}

// rules is the breaker's transition table. Order is priority: the first
// rule that applies to the current state wins, in the bash loop's order.
// HALF_OPEN does not check the same-error rule or the monitoring rules,
// as the bash loop does not; OPEN stays OPEN until Startup or a manual
// Reset moves it.
var rules = []rule{
	{
		from: []string{Closed, halfOpen}, to: Open, signal: signalPermissionDenials,
		when: func(f facts) bool { return reached(f.n.ConsecutivePermissionDenials, f.c.PermissionDenialThreshold) },
		reason: func(f facts) string {
			return fmt.Sprintf("Permission denied in %d consecutive loops", f.n.ConsecutivePermissionDenials)
		},
	},
	{
		from: []string{Closed, halfOpen}, to: Open, signal: signalReadOnlyTimeouts,
		when: func(f facts) bool { return reached(f.n.ConsecutiveReadOnlyTimeouts, f.c.ReadOnlyTimeoutThreshold) },
		reason: func(f facts) string {
			return fmt.Sprintf("Read-only timeout in %d consecutive loops (agent stuck reading)", f.n.ConsecutiveReadOnlyTimeouts)
		},
	},
	{
		from: []string{halfOpen}, to: Closed,
		when:   func(f facts) bool { return f.progress },
		reason: func(facts) string { return "Progress detected, circuit recovered" },
	},
	{
		from: []string{Closed}, to: Open, signal: signalNoProgress,
		when: func(f facts) bool { return reached(f.n.ConsecutiveNoProgress, f.c.NoProgressThreshold) },
		reason: func(f facts) string {
			return fmt.Sprintf("No progress detected in %d consecutive loops", f.n.ConsecutiveNoProgress)
		},
	},
	{
		from: []string{halfOpen}, to: Open, signal: signalNoProgress,
		when: func(f facts) bool { return reached(f.n.ConsecutiveNoProgress, f.c.NoProgressThreshold) },
		reason: func(f facts) string {
			return fmt.Sprintf("No recovery, opening circuit after %d loops", f.n.ConsecutiveNoProgress)
		},
	},
	{
		from: []string{Closed}, to: Open, signal: signalSameError,
		when: func(f facts) bool { return reached(f.n.ConsecutiveSameError, f.c.SameErrorThreshold) },
		reason: func(f facts) string {
			return fmt.Sprintf("Same error repeated in %d consecutive loops", f.n.ConsecutiveSameError)
		},
	},
	{
		from: []string{Closed}, to: halfOpen, signal: signalNoProgress,
		when: func(f facts) bool { return f.n.ConsecutiveNoProgress >= hardHalfOpenAt },
		reason: func(f facts) string {
			return fmt.Sprintf("Monitoring: %d loops without progress", f.n.ConsecutiveNoProgress)
		},
	},
	{
		from: []string{Closed}, to: halfOpen, signal: signalOutputDecline,
		when: func(f facts) bool { return f.declined },
		reason: func(f facts) string {
			return fmt.Sprintf("Monitoring: output declined by %d%% without progress (%d -> %d bytes)", f.decline, f.prevLen, f.outLen)
		},
	},
	{
		from: []string{Open}, to: Open,
		when:   func(facts) bool { return true },
		reason: func(facts) string { return "Circuit breaker is open, execution halted" },
	},
}

// matchRule returns the first rule of the table that applies in state
// from, or nil when none does (the state stays and the reason is empty).
func matchRule(from string, f facts) *rule {
	for i := range rules {
		if slices.Contains(rules[i].from, from) && rules[i].when(f) {
			return &rules[i]
		}
	}
	return nil
}

// outputDecline implements CB_OUTPUT_DECLINE_THRESHOLD, which the bash loop
// defines but never reads: a loop without progress whose output is more
// than threshold percent shorter than the previous loop's. It returns the
// decline in percent and whether the rule fires.
func outputDecline(prevLen int, r LoopResult, progress bool, c Config) (int, bool) {
	t := c.OutputDeclineThreshold
	if t <= 0 || t >= 100 || progress || r.ReadOnlyTimeout || prevLen <= 0 || r.OutputLength < 0 || r.OutputLength >= prevLen {
		return 0, false
	}
	decline := int(int64(prevLen-r.OutputLength) * 100 / int64(prevLen))
	return decline, decline > t
}

// Startup applies the checks the bash loop makes before every iteration
// (init_circuit_breaker): an OPEN circuit becomes CLOSED when AutoReset is
// set, or HALF_OPEN once Cooldown has passed since it opened. It also
// stamps LastChange on a state that has none (a new or repaired file).
func (s State) Startup(now time.Time, c Config) (State, *Transition) {
	now = stamp(now)
	n := s.clone()
	if !validState(n.State) {
		n.State = Closed
	}
	if n.LastChange.IsZero() {
		n.LastChange = now
	}
	if n.State != Open {
		return n, nil
	}
	if c.AutoReset {
		n = State{State: Closed, LastChange: now, TotalOpens: s.TotalOpens, Reason: "Auto-reset on startup"}
		return n, &Transition{From: Open, To: Closed, Reason: "Auto-reset on startup (CB_AUTO_RESET=true)", Loop: s.CurrentLoop, At: now}
	}
	elapsed, ok := n.elapsedMinutes(now)
	cool := cooldownMinutes(c)
	if !ok || elapsed < 0 || elapsed < cool {
		return n, nil
	}
	n.State = halfOpen
	n.LastChange = now
	n.Reason = fmt.Sprintf("Cooldown recovery: %dm elapsed", elapsed)
	return n, &Transition{
		From: Open, To: halfOpen,
		Reason: fmt.Sprintf("Cooldown elapsed (%dm >= %dm)", elapsed, cool),
		Loop:   n.CurrentLoop, At: now,
	}
}

// openedSince is when the cooldown started: opened_at, else last_change
// (files written before opened_at existed).
func (s State) openedSince() time.Time {
	if !s.OpenedAt.IsZero() {
		return s.OpenedAt
	}
	return s.LastChange
}

// elapsedMinutes is whole minutes since the circuit opened, truncated
// toward zero as the bash loop's shell arithmetic does (so a clock 30 s
// behind still counts as 0, and a minute or more behind is negative).
func (s State) elapsedMinutes(now time.Time) (int64, bool) {
	since := s.openedSince()
	if since.IsZero() {
		return 0, false
	}
	return (now.Unix() - since.Unix()) / 60, true
}

func cooldownMinutes(c Config) int64 {
	if c.Cooldown <= 0 {
		return 0
	}
	return int64(c.Cooldown / time.Minute)
}

// Reset is the state --reset-circuit writes: CLOSED with every counter and
// total_opens at 0. An empty reason becomes "Manual reset". The history
// is left alone, as the bash loop does.
func Reset(reason string, now time.Time) State {
	if reason == "" {
		reason = "Manual reset"
	}
	return State{State: Closed, LastChange: stamp(now), Reason: reason}
}
