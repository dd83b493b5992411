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

// Kept is the state earlier runs kept under .ralph/, as one value: the
// store loads it once at start-up (Load), the engine starts from it and
// from then on keeps it in memory, and every change it decides is saved
// by the store. Peek reads the same value for commands that only look.
type Kept struct {
	Window          ratelimit.Window
	Breaker         breaker.State
	HaveBreaker     bool                 // .circuit_breaker_state was there and read; false: Breaker is a fresh CLOSED state
	Session         session.RalphSession // .ralph_session; zero when missing or invalid
	ExitSignals     analysis.ExitSignals
	HaveExitSignals bool
	Analysis        *analysis.ResponseAnalysis // nil: none
	ErrorHistory    analysis.ErrorHistory
	OutputLength    int // the last output's length, 0 when none
	Gates           *gates.Results
	Findings        *review.Findings
	ReviewSHA       string
	DiffSummary     string // the last loop's diff summary, trimmed
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

// failed is the end of every save of the kept state: a save that failed
// is worded (failed) and warned of once, here, and the error returned for
// the engine to decide what else it means. None is dropped.
func (s *Store) failed(name string, err error, consequence string) error {
	err = failed(s.d, name, err, consequence)
	if err != nil {
		s.warn(err)
	}
	return err
}

// saveWindow writes the call count and its hour.
func (s *Store) saveWindow(w ratelimit.Window) error {
	return s.failed(ralphdir.CallCount, saveWindow(s.d, w),
		"the next run counts this hour's calls from the count last saved")
}

// saveAnalysis writes .response_analysis.
func (s *Store) saveAnalysis(ra analysis.ResponseAnalysis) error {
	b, err := ra.Marshal()
	if err == nil {
		err = s.d.WriteFile(ralphdir.ResponseAnalysis, b)
	}
	return s.failed(ralphdir.ResponseAnalysis, err,
		"the exit checks and --status see the previous call's analysis")
}

// removeAnalysis removes .response_analysis (a failed call has none).
func (s *Store) removeAnalysis() error {
	return s.failed(ralphdir.ResponseAnalysis, s.d.Remove(ralphdir.ResponseAnalysis),
		"the exit checks and --status still see the previous call's analysis")
}

// saveExitSignals writes .exit_signals.
func (s *Store) saveExitSignals(es analysis.ExitSignals) error {
	b, err := es.Marshal()
	if err == nil {
		err = s.d.WriteFile(exitSignals, b)
	}
	return s.failed(exitSignals, err,
		"the next run starts from the exit signals last saved")
}

// saveErrorHistory writes the error history (and drops the file of its
// old place).
func (s *Store) saveErrorHistory(h analysis.ErrorHistory) error {
	b, err := h.Marshal()
	if err == nil {
		err = s.d.WriteFile(errorHistoryFile, b)
	}
	if err == nil {
		s.d.Remove(oldErrorHistoryFile) // gone or not, the new file is read first
	}
	return s.failed(errorHistoryFile, err,
		"the next run does not see this loop's errors when it looks for repeated ones")
}

// saveOutputLength writes .last_output_length.
func (s *Store) saveOutputLength(n int) error {
	return s.failed(lastOutputLength, s.d.WriteFile(lastOutputLength, []byte(strconv.Itoa(n)+"\n")),
		"the next run compares its output with an older length")
}

// saveGates writes the quality-gate results.
func (s *Store) saveGates(r *gates.Results) error {
	if r.CustomGates == nil {
		r.CustomGates = []gates.CustomGate{}
	}
	return s.failed(qualityGateResults, s.d.WriteJSON(qualityGateResults, r),
		"--status and the next run see the previous gate results")
}

// saveFindings writes the review findings.
func (s *Store) saveFindings(f review.Findings) error {
	return s.failed(reviewFindings, s.d.WriteFile(reviewFindings, f.JSON()),
		"a restarted run does not hand these findings to its next loop")
}

// removeFindings removes the review findings (they reach one loop only).
func (s *Store) removeFindings() error {
	return s.failed(reviewFindings, s.d.Remove(reviewFindings),
		"a restarted run hands the same findings to its next loop again")
}

// saveReviewSHA writes the commit the last review saw.
func (s *Store) saveReviewSHA(sha string) error {
	data := []byte{}
	if sha = strings.TrimSpace(sha); sha != "" {
		data = []byte(sha + "\n")
	}
	return s.failed(reviewLastSHA, s.d.WriteFile(reviewLastSHA, data),
		"a restarted run may review these commits again")
}

// saveLoopStart writes the commit a loop started from.
func (s *Store) saveLoopStart(sha string) error {
	return s.failed(loopStartSHA, s.d.WriteFile(loopStartSHA, []byte(sha+"\n")),
		"it still names an earlier loop's start commit")
}

// saveDiffSummary writes the loop's diff summary for the next loop's
// context.
func (s *Store) saveDiffSummary(sum string) error {
	return s.failed(loopDiffSummary, s.d.WriteFile(loopDiffSummary, []byte(sum+"\n")),
		"a restarted run's first loop is not told what this loop changed")
}

// removeDiffSummary removes the diff summary once a loop has taken it.
func (s *Store) removeDiffSummary() error {
	return s.failed(loopDiffSummary, s.d.Remove(loopDiffSummary),
		"a restarted run's first loop is told the same changes again")
}

// markWriteTimeout records a write-heartbeat kill for the next call's
// context.
func (s *Store) markWriteTimeout(now time.Time) error {
	return s.failed(writeHeartbeatTrigger, s.d.WriteFile(writeHeartbeatTrigger, []byte(now.UTC().Format(time.RFC3339)+"\n")),
		"a restarted run's next call is not told that this one was stopped for not writing")
}

// clearWriteTimeout removes that record.
func (s *Store) clearWriteTimeout() error {
	return s.failed(writeHeartbeatTrigger, s.d.Remove(writeHeartbeatTrigger),
		"a later call may be told again about an old write timeout")
}

// savePlan writes @fix_plan.md (finished stories collapsed).
func (s *Store) savePlan(plan []byte) error {
	return s.failed(ralphdir.FixPlan, s.d.WriteFile(ralphdir.FixPlan, plan),
		"its finished stories stay expanded")
}

// saveUnticked writes @fix_plan.md with the tasks whose check failed open
// again.
func (s *Store) saveUnticked(plan []byte) error {
	return s.failed(ralphdir.FixPlan, s.d.WriteFile(ralphdir.FixPlan, plan),
		"the tasks whose VERIFY_COMMAND failed stay ticked there")
}
