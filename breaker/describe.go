package breaker

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// DefaultResetCommand is what a user runs to close an OPEN circuit by
// hand when Config.ResetCommand names nothing else.
const DefaultResetCommand = "ralph_loop --reset-circuit"

// resetCommand is c.ResetCommand, or DefaultResetCommand.
func (c Config) resetCommand() string {
	if c.ResetCommand != "" {
		return c.ResetCommand
	}
	return DefaultResetCommand
}

// ErrOpen is the sentinel for "the circuit is OPEN"; the error the loop
// stops with is an *openError, which matches it with errors.Is.
var ErrOpen = errors.New("circuit breaker open")

// openError is the loop's stop error while the circuit is OPEN. Its
// message says why and what to do next (run ResetCommand, "" for
// DefaultResetCommand).
type openError struct {
	State        State
	ResetCommand string
}

func (e *openError) Error() string {
	why := e.State.Reason
	if why == "" {
		why = "stagnation detected"
	}
	return fmt.Sprintf("circuit breaker open: %s (run %s to continue)", why, Config{ResetCommand: e.ResetCommand}.resetCommand())
}

// Is makes errors.Is(err, ErrOpen) true.
func (e *openError) Is(target error) bool { return target == ErrOpen }

// Err returns an *openError, which names c's reset command, while s is
// OPEN, else nil: nil is the loop's leave to call the agent.
func (s State) Err(c Config) error {
	if s.State == Open {
		return &openError{State: s, ResetCommand: c.ResetCommand}
	}
	return nil
}

// Lines is the bash loop's two-line transition banner (without colour):
// a headline for the new state and "Reason: <reason>".
func (t Transition) Lines() []string {
	var head string
	switch t.To {
	case Open:
		head = "🚨 CIRCUIT BREAKER OPENED"
	case halfOpen:
		head = "⚠️  CIRCUIT BREAKER: Monitoring Mode"
	case Closed:
		head = "✅ CIRCUIT BREAKER: Normal Operation"
	default:
		return nil
	}
	return []string{head, "Reason: " + t.Reason}
}

const (
	boxTop    = "╔════════════════════════════════════════════════════════════╗"
	boxBottom = "╚════════════════════════════════════════════════════════════╝"
)

// reasonWords is the state's reason, or what is true when none was
// recorded (a circuit that never changed state has none).
func reasonWords(s State) string {
	switch {
	case s.Reason != "":
		return s.Reason
	case s.State == Closed:
		return "none (the circuit is closed; nothing has tripped it)"
	}
	return "not recorded"
}

// lastProgressWords is "Loop #N", or "none yet" when no loop has made
// progress (the state's 0), with "of an earlier run" when the loops
// recorded since were numbered from 1 again (streakRuns).
func lastProgressWords(s State) string {
	if s.LastProgressLoop <= 0 {
		return "none yet"
	}
	w := "Loop #" + strconv.Itoa(s.LastProgressLoop)
	if runs := streakRuns(s.NoProgressLoops); len(runs) > 1 || len(runs) == 1 && runs[0][0] <= s.LastProgressLoop ||
		len(runs) == 0 && s.CurrentLoop > 0 && s.CurrentLoop < s.LastProgressLoop {
		w += " of an earlier run"
	}
	return w
}

// streakRuns splits the loops of a no-progress streak by run: loop
// numbers restart at 1 each run (as the bash loop's do, and the state
// keeps them as they are), so a number that does not follow the one
// before it starts a later run.
func streakRuns(loops []int) [][]int {
	var runs [][]int
	for i, n := range loops {
		if i == 0 || n <= loops[i-1] {
			runs = append(runs, nil)
		}
		runs[len(runs)-1] = append(runs[len(runs)-1], n)
	}
	return runs
}

// streakWords is the loops of a no-progress streak, said by run when it
// spans several: "loops 4, 5 of an earlier run, then 1, 2, 3".
func streakWords(loops []int) string {
	runs := streakRuns(loops)
	w := "loops " + joinInts(runs[0])
	for i, r := range runs[1:] {
		if i == 0 {
			w += " of an earlier run"
		}
		w += ", then " + joinInts(r)
		if i < len(runs)-2 {
			w += " of a later run"
		}
	}
	return w
}

// Describe is the --circuit-status text: the bash loop's status block
// (same labels, so scripts grepping "Loops since progress:" keep
// working), then what tripped the breaker, the evidence, the counters
// against their thresholds and what to do next. It only reads s; it never
// applies the cooldown (the next run does).
func Describe(s State, now time.Time, c Config) []string {
	icon := map[string]string{Closed: "✅", halfOpen: "⚠️ ", Open: "🚨"}[s.State]
	current := "N/A"
	if s.CurrentLoop != 0 {
		current = "#" + strconv.Itoa(s.CurrentLoop)
	}
	lines := []string{
		boxTop,
		"║           Circuit Breaker Status                           ║",
		boxBottom,
		"State:                 " + icon + " " + s.State,
		"Reason:                " + reasonWords(s),
		"Loops since progress: " + strconv.Itoa(s.ConsecutiveNoProgress),
		"Last progress:        " + lastProgressWords(s),
		"Current loop:         " + current,
		"Total opens:          " + strconv.Itoa(s.TotalOpens),
	}
	add := func(label, value string) { lines = append(lines, fmt.Sprintf("%-22s%s", label+":", value)) }

	add("Counters", counters(s, c))
	sig := s.signal()
	if s.State != Closed && sig != "" {
		add("Tripped by", sig.describe(c))
	}
	for _, e := range s.evidence(sig) {
		add(e[0], e[1])
	}

	switch s.State {
	case Closed:
		add("Next step", "none; the loop runs normally")
	case halfOpen:
		left := 1
		if c.NoProgressThreshold > 0 {
			left = max(c.NoProgressThreshold-s.ConsecutiveNoProgress, 1)
		}
		add("Next step", fmt.Sprintf("none yet: a loop with progress closes the circuit; %d more without progress open it", left))
	case Open:
		if !s.openedSince().IsZero() {
			add("Opened at", formatISO(s.openedSince()))
		}
		add("Cooldown", cooldownText(s, now, c))
		add("Next step", sig.advice())
		add("To continue now", c.resetCommand())
	}
	return append(lines, "")
}

// Halted is the text the loop prints when it refuses to start an
// iteration because the circuit is OPEN: the status block, then the
// bash loop's "EXECUTION HALTED" box and checklist.
func Halted(s State, now time.Time, c Config) []string {
	return append(Describe(s, now, c),
		boxTop,
		"║  EXECUTION HALTED: Circuit Breaker Opened                  ║",
		boxBottom,
		"",
		"To continue:",
		"  1. Review recent logs: tail -20 .ralph/logs/ralph.log",
		"  2. Check the last agent output in .ralph/logs/",
		"  3. Update .ralph/@fix_plan.md or .ralph/PROMPT.md if needed",
		"  4. Reset the circuit breaker: "+c.resetCommand(),
		"",
	)
}

func counters(s State, c Config) string {
	of := func(n, t int) string {
		if t <= 0 {
			return strconv.Itoa(n) + " (rule off)"
		}
		return fmt.Sprintf("%d/%d", n, t)
	}
	denials := of(s.ConsecutivePermissionDenials, c.PermissionDenialThreshold)
	if !c.CountPermissionDenials {
		denials = "not counted (PERMISSION_DENIAL_MODE is not threshold)"
	}
	return fmt.Sprintf("no progress %s, errors %s, read-only timeouts %s, permission denials %s",
		of(s.ConsecutiveNoProgress, c.NoProgressThreshold),
		of(s.ConsecutiveSameError, c.SameErrorThreshold),
		of(s.ConsecutiveReadOnlyTimeouts, c.ReadOnlyTimeoutThreshold),
		denials)
}

// signal is TrippedBy, or for files written by the bash loop (which has
// no tripped_by) the rule read back from the reason.
func (s State) signal() tripSignal {
	if s.TrippedBy != "" {
		return tripSignal(s.TrippedBy)
	}
	for _, r := range []struct {
		prefix string
		sig    tripSignal
	}{
		{"Permission denied in", signalPermissionDenials},
		{"Read-only timeout in", signalReadOnlyTimeouts},
		{"No progress detected", signalNoProgress},
		{"No recovery", signalNoProgress},
		{"Monitoring: output", signalOutputDecline},
		{"Monitoring:", signalNoProgress},
		{"Same error repeated", signalSameError},
	} {
		if strings.HasPrefix(s.Reason, r.prefix) {
			return r.sig
		}
	}
	return ""
}

func (g tripSignal) describe(c Config) string {
	switch g {
	case signalPermissionDenials:
		return fmt.Sprintf("permission denials (CB_PERMISSION_DENIAL_THRESHOLD=%d)", c.PermissionDenialThreshold)
	case signalReadOnlyTimeouts:
		return fmt.Sprintf("read-only timeouts (CB_READ_ONLY_TIMEOUT_THRESHOLD=%d)", c.ReadOnlyTimeoutThreshold)
	case signalNoProgress:
		return fmt.Sprintf("no progress (CB_NO_PROGRESS_THRESHOLD=%d)", c.NoProgressThreshold)
	case signalSameError:
		return fmt.Sprintf("errors in consecutive loops (CB_SAME_ERROR_THRESHOLD=%d)", c.SameErrorThreshold)
	case signalOutputDecline:
		return fmt.Sprintf("output decline without progress (CB_OUTPUT_DECLINE_THRESHOLD=%d%%)", c.OutputDeclineThreshold)
	}
	return string(g)
}

func (g tripSignal) advice() string {
	switch g {
	case signalPermissionDenials:
		return "allow the denied tools (ALLOWED_TOOLS in .ralph/.ralphrc) or change the task so it does not need them"
	case signalReadOnlyTimeouts:
		return "split the current task in .ralph/@fix_plan.md into smaller steps, or raise WRITE_TIMEOUT_MINUTES"
	case signalSameError:
		return "fix the error shown above (full agent output in .ralph/logs/)"
	case signalNoProgress, signalOutputDecline:
		return "check whether .ralph/@fix_plan.md is finished or unclear, sharpen .ralph/PROMPT.md, and read the last agent output in .ralph/logs/"
	}
	return "review .ralph/logs/ralph.log and the last agent output in .ralph/logs/"
}

// evidence returns label/value pairs backing the current signal.
func (s State) evidence(sig tripSignal) [][2]string {
	var out [][2]string
	if len(s.NoProgressLoops) > 0 && (sig == signalNoProgress || s.ConsecutiveNoProgress > 0) {
		out = append(out, [2]string{"No progress in", streakWords(s.NoProgressLoops) + " (no file changes, no reported changes, no completion signal)"})
	}
	if len(s.QuestionLoops) > 0 {
		out = append(out, [2]string{"Questions asked in", "loops " + joinInts(s.QuestionLoops) + "; nobody answers them in a loop: put the answers in .ralph/PROMPT.md or .ralph/@fix_plan.md"})
	}
	if len(s.Errors) > 0 {
		last := s.Errors[len(s.Errors)-1]
		same := true
		for _, e := range s.Errors {
			same = same && e.Line == last.Line
		}
		value := fmt.Sprintf("loop %d: %s", last.Loop, last.Line)
		if len(s.Errors) > 1 {
			if same {
				value += fmt.Sprintf(" (the same line in the last %d loops)", len(s.Errors))
			} else {
				value += fmt.Sprintf(" (errors differ across the last %d loops)", len(s.Errors))
			}
		}
		out = append(out, [2]string{"Last error", value})
	}
	if len(s.DeniedCommands) > 0 {
		out = append(out, [2]string{"Denied", strings.Join(s.DeniedCommands, ", ")})
	}
	return out
}

func cooldownText(s State, now time.Time, c Config) string {
	if c.AutoReset {
		return "skipped: CB_AUTO_RESET=true, so the next run starts CLOSED"
	}
	cool := cooldownMinutes(c)
	elapsed, ok := s.elapsedMinutes(stamp(now))
	switch {
	case !ok:
		return "unknown start time; the next run starts the cooldown clock"
	case elapsed < 0:
		return "opened_at is in the future (clock changed?); reset by hand"
	case elapsed >= cool:
		return fmt.Sprintf("over (%dm >= %dm); the next run starts in HALF_OPEN", elapsed, cool)
	}
	return fmt.Sprintf("%dm left of %dm (CB_COOLDOWN_MINUTES); then the next run starts in HALF_OPEN", cool-elapsed, cool)
}

func joinInts(xs []int) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = strconv.Itoa(x)
	}
	return strings.Join(parts, ", ")
}

// AtStart is what a run that starts with the circuit OPEN says after the
// stop itself, in one line: what to look at before resetting it, and
// when the cooldown lets one loop try without a reset.
func AtStart(s State, now time.Time, c Config) string {
	cool := cooldownMinutes(c)
	wait := ""
	switch elapsed, ok := s.elapsedMinutes(stamp(now)); {
	case !ok:
		wait = fmt.Sprintf("its opening time is unknown: the cooldown (CB_COOLDOWN_MINUTES=%d) starts now", cool)
	case elapsed < 0:
		wait = "its opened_at is in the future (clock changed?): only a reset closes it"
	default:
		wait = fmt.Sprintf("without a reset, one loop may try again in %dm (CB_COOLDOWN_MINUTES=%d)", max(cool-elapsed, 1), cool)
	}
	status := strings.TrimSuffix(c.resetCommand(), "--reset-circuit") + "--circuit-status"
	return fmt.Sprintf("Before you reset it: %s; %s. Details: %s", s.signal().advice(), wait, status)
}
