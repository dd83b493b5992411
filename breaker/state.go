package breaker

import (
	"slices"
	"time"
)

// The three circuit states, spelled as in .circuit_breaker_state.
const (
	Closed   = "CLOSED"
	halfOpen = "HALF_OPEN"
	Open     = "OPEN"
)

// tripSignal names the rule that moved the breaker out of CLOSED. It is
// stored in the state file as "tripped_by" (State.TrippedBy) so a reader can
// tell why it stopped.
type tripSignal string

// The signals, in the order the rules are checked.
const (
	signalPermissionDenials = "permission_denials"
	signalReadOnlyTimeouts  = "read_only_timeouts"
	signalNoProgress        = "no_progress"
	signalSameError         = "same_error"
	signalOutputDecline     = "output_decline"
)

// Evidence lists are capped so a long streak cannot grow the state file
// without bound; the newest entries are kept.
const (
	maxLoopsKept    = 20
	maxErrorsKept   = 10
	maxDeniedKept   = 20
	maxErrorLineLen = 300
)

// State is the content of .ralph/.circuit_breaker_state. The first eleven
// fields are the bash loop's keys, with the bash loop's meaning; the rest
// are keys this port adds so the file explains why the circuit opened.
// Readers that only know the bash loop's keys (bmalph, ralph_monitor, jq
// scripts) ignore them.
type State struct {
	State                        string    // "state": "CLOSED", "HALF_OPEN" or "OPEN"
	LastChange                   time.Time // "last_change": time of the last write by Record, Startup or Reset
	ConsecutiveNoProgress        int       // "consecutive_no_progress"
	ConsecutiveSameError         int       // "consecutive_same_error": loops in a row whose output had errors
	ConsecutivePermissionDenials int       // "consecutive_permission_denials"
	ConsecutiveReadOnlyTimeouts  int       // "consecutive_read_only_timeouts"
	LastProgressLoop             int       // "last_progress_loop"
	TotalOpens                   int       // "total_opens"
	Reason                       string    // "reason": "" when no rule fired in the last call
	CurrentLoop                  int       // "current_loop": loop of the last Record; 0 = key absent
	OpenedAt                     time.Time // "opened_at": zero = key absent

	// Added keys (omitted while empty).
	TrippedBy        string      // "tripped_by": the signal* rule behind the current HALF_OPEN or OPEN
	NoProgressLoops  []int       // "no_progress_loops": loops of the current no-progress streak
	QuestionLoops    []int       // "question_loops": loops of that streak in which the agent asked questions
	Errors           []ErrorLine // "error_streak": one error line per loop of the current error streak
	DeniedCommands   []string    // "denied_commands": commands denied during the current denial streak
	LastOutputLength int         // "last_output_length": output bytes of the last recorded loop (output-decline rule)
}

// ErrorLine is one loop's first error line, kept as evidence for the
// same-error rule.
type ErrorLine struct {
	Loop int    `json:"loop"`
	Line string `json:"line"`
}

// Fresh is the initial CLOSED state the bash loop writes when no state file
// exists.
func Fresh(now time.Time) State {
	return State{State: Closed, LastChange: stamp(now)}
}

// clone copies s so that appending to its slices never writes into the
// caller's backing arrays.
func (s State) clone() State {
	s.NoProgressLoops = slices.Clone(s.NoProgressLoops)
	s.QuestionLoops = slices.Clone(s.QuestionLoops)
	s.Errors = slices.Clone(s.Errors)
	s.DeniedCommands = slices.Clone(s.DeniedCommands)
	return s
}

// stamp is the precision and zone the state file keeps: whole seconds, UTC.
func stamp(t time.Time) time.Time { return t.UTC().Truncate(time.Second) }

// keepLast returns the last n elements of xs.
func keepLast[T any](xs []T, n int) []T {
	if len(xs) > n {
		return slices.Clone(xs[len(xs)-n:])
	}
	return xs
}

func validState(s string) bool { return s == Closed || s == halfOpen || s == Open }
