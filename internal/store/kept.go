package store

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/ralphloop/ralph_loop/analysis"
	"github.com/ralphloop/ralph_loop/breaker"
	"github.com/ralphloop/ralph_loop/internal/gates"
	"github.com/ralphloop/ralph_loop/internal/ralphdir"
	"github.com/ralphloop/ralph_loop/internal/review"
	"github.com/ralphloop/ralph_loop/ratelimit"
	"github.com/ralphloop/ralph_loop/session"
)

// errorHistoryFile keeps the error lines of recent loops, so that the same
// errors repeating across loops are recognised (stuck-loop detection). It
// lives under logs/, which bmalph's .gitignore hides: the bash loop has no
// such file, so it must not show in git status. oldErrorHistoryFile is
// where earlier versions kept it.
const (
	errorHistoryFile    = "logs/.error_history"
	oldErrorHistoryFile = ".error_history"
)

// emptyExitSignals is the .exit_signals a project starts with, spelled as
// the bash loop writes it.
const emptyExitSignals = `{"test_only_loops": [], "done_signals": [], "completion_indicators": []}` + "\n"

// Kept is the state the loop keeps under .ralph/, as one value: the store
// loads it once at start-up (Load), the engine starts from it, keeps it in
// memory from then on and hands it whole to Save at a few points of each
// iteration; Save writes the files of the parts that changed. Peek reads
// the same value for commands that only look.
//
// A new kept value is a field here, its file in Save's parts (save.go) and
// its read in load, and the engine's assignment.
type Kept struct {
	Window          ratelimit.Window
	Breaker         breaker.State
	HaveBreaker     bool                 // .circuit_breaker_state was there and read; false: Breaker is a fresh CLOSED state
	Session         session.RalphSession // .ralph_session; zero when missing or invalid
	ExitSignals     analysis.ExitSignals
	HaveExitSignals bool
	// ExitSignalsUpdates counts the calls whose signals were recorded in
	// this run: each is saved, as the bash loop writes the file after
	// every call, even when the signals stayed as they were (the file then
	// takes this loop's spelling of them).
	ExitSignalsUpdates int
	Analysis           *analysis.ResponseAnalysis // nil: none
	ErrorHistory       analysis.ErrorHistory
	OutputLength       int // the last output's length, 0 when none
	// OutputLengthUpdates counts the analyses that set OutputLength in
	// this run: each is saved, as the bash loop writes the file after
	// each such analysis, even with the same length (a 0 after a
	// zero-length reply is written where no file was).
	OutputLengthUpdates int
	Gates               *gates.Results
	Findings            *review.Findings
	ReviewSHA           string
	LoopStartSHA        string    // the commit the last loop started from
	DiffSummary         string    // the last loop's diff summary, trimmed; "": none
	WriteTimeout        time.Time // the write heartbeat stopped the last call then; zero: no such mark (the run's own: Load does not read it)

	// The changes since the last Save that are steps, not values: the
	// breaker's moves, for its history, and what the engine did with the
	// sessions. Save carries them out; the engine empties them after it.
	BreakerMoves []breaker.Transition
	SessionSteps []SessionStep
}

// Load reads the kept state at start-up (now classifies the session). A state file that is not valid is
// moved aside by the directory (with a warning) and counts as missing; a
// missing .exit_signals is created empty, as the bash loop does. Only the
// call window and the breaker can fail the start; a failure to create
// .exit_signals is warned of once the state is read (the run goes on
// without one).
func (s *Store) Load(now time.Time) (v Kept, err error) {
	var warning error
	if !s.d.Exists(exitSignals) {
		warning = failed(s.d, exitSignals, s.d.WriteFile(exitSignals, []byte(emptyExitSignals)),
			"the bash loop's tools find no exit signals file until the first loop writes one")
	}
	defer func() {
		if warning != nil {
			s.warn(warning)
		}
	}()
	if v.Window, err = loadWindow(s.d); err != nil {
		return v, err
	}
	if v.Breaker, err = loadBreaker(s.d); err != nil {
		return v, err
	}
	v.HaveBreaker = s.d.Exists(ralphdir.CircuitBreakerState) // a damaged one was moved aside
	s.load(&v, s.d.ReadValid)
	if rs, _, err := s.sessions.current(now); err == nil {
		v.Session = rs
	}
	s.loadedAs(v)
	return v, nil
}

// load reads the kept state but the window and the breaker with read,
// which is ralphdir's ReadValid (a damaged file moved aside) or a
// read-only stand-in.
func (s *Store) load(v *Kept, read func(string, func([]byte) error) (bool, error)) {
	v.HaveExitSignals, _ = read(exitSignals, func(b []byte) error {
		es, err := analysis.ParseExitSignals(b)
		v.ExitSignals = es
		return err
	})
	read(ralphdir.ResponseAnalysis, func(b []byte) error {
		ra, err := analysis.ParseResponseAnalysis(b)
		if err == nil {
			v.Analysis = &ra
		}
		return err
	})
	read(errorHistoryFile, func(b []byte) error {
		h, err := analysis.ParseErrorHistory(b)
		v.ErrorHistory = h
		return err
	})
	read(lastOutputLength, func(b []byte) error {
		n, err := strconv.Atoi(strings.TrimSpace(string(b)))
		v.OutputLength = n
		return err
	})
	read(qualityGateResults, func(b []byte) error {
		r, err := gates.Decode(b)
		v.Gates = r
		return err
	})
	read(reviewFindings, func(b []byte) error {
		f, err := review.Decode(b)
		if err == nil {
			v.Findings = &f
		}
		return err
	})
	if b, _, err := s.d.ReadFile(reviewLastSHA); err == nil {
		v.ReviewSHA = strings.TrimSpace(string(b))
	}
	if data, found, _ := s.d.ReadFile(loopDiffSummary); found {
		v.DiffSummary = strings.TrimSpace(string(data))
	}
	if data, found, _ := s.d.ReadFile(loopStartSHA); found {
		v.LoopStartSHA = strings.TrimSpace(string(data))
	}
}

// Peek reads the kept state of d for a command that only looks (--status,
// --circuit-status, the dashboard, the report): nothing is created, moved
// aside, repaired or written, so it is safe while a loop runs. A file that
// cannot be read as its state reads as missing (the breaker as a fresh
// CLOSED state at now, HaveBreaker false), and damaged names each such
// file (its path under .ralph/) with what is wrong with it; the loop moves
// it aside when it next starts.
func Peek(d *ralphdir.Dir, now time.Time) (v Kept, damaged map[string]error) {
	damaged = map[string]error{}
	v.Window = peekWindow(d)
	var err error
	if v.Breaker, v.HaveBreaker, err = peekBreaker(d, now); err != nil {
		damaged[ralphdir.CircuitBreakerState] = err
	}
	s := &Store{d: d}
	s.load(&v, func(name string, decode func([]byte) error) (bool, error) {
		b, found, err := d.ReadFile(name)
		if err == nil && found {
			err = decode(b)
		}
		if err != nil {
			damaged[name] = err
			return false, nil
		}
		return found, nil
	})
	if rs, err := PeekSession(d, now); err != nil {
		damaged[ralphSession] = err
	} else {
		v.Session = rs
	}
	return v, damaged
}

// PeekSession is the session file alone, read as Peek reads it: zero when
// it is missing or cannot be read, an error when its content is damaged.
func PeekSession(d *ralphdir.Dir, now time.Time) (session.RalphSession, error) {
	b, found, err := d.ReadFile(ralphSession)
	if err != nil || !found {
		return session.RalphSession{}, nil
	}
	return session.Decode(b, now)
}

// failed words a save that failed, nil when err is nil: what could not be
// written, why, and what that means.
func failed(d *ralphdir.Dir, name string, err error, consequence string) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("could not save %s: %w; %s", d.Path(name), err, consequence)
}
