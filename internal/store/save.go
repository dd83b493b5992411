package store

import (
	"bytes"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/ralphloop/ralph_loop/analysis"
	"github.com/ralphloop/ralph_loop/internal/gates"
	"github.com/ralphloop/ralph_loop/internal/ralphdir"
)

// SessionStep is one thing the engine did with the sessions. The session
// files' content (ids, times, the history) is made here, in session.go,
// which also says their log lines ("Initialized session tracking", "Saved
// session: …", "Session reset: …"); so the engine hands over what it did,
// in order, and Save carries it out.
type SessionStep struct {
	Kind SessionStepKind
	At   time.Time
	// ID is the session id the agent reported (SessionSaveID), Driver the
	// fallback driver whose own session it is ("": the main driver's).
	ID, Driver string
	// Reason and Loop are a reset's (SessionReset), Reason also the
	// stop's that kept the session (SessionKeep).
	Reason string
	Loop   int
}

// SessionStepKind is what a SessionStep did.
type SessionStepKind int

// The session steps.
const (
	SessionStart  SessionStepKind = iota + 1 // tracking starts (an active session of an earlier run goes on)
	SessionTouch                             // an iteration uses the session
	SessionSaveID                            // the agent reported its session id
	SessionReset                             // the session ends
	SessionKeep                              // a stop keeps the session for the next run (KEEP_SESSION_ON_STOP)
)

// PlanEdit says why the loop rewrites @fix_plan.md (WritePlan), which says
// what a failure to write it means.
type PlanEdit int

// The loop's edits of the plan.
const (
	PlanCollapsed PlanEdit = iota + 1 // finished stories collapsed
	PlanUnticked                      // tasks whose VERIFY_COMMAND failed opened again
	PlanSetAside                      // a task set aside with the agent's unanswered question
)

// rendered is a part of the kept state as its file holds it: data, or no
// file at all (present false); a new version is saved even with the same
// data (its file may hold another tool's spelling of it).
type rendered struct {
	data    []byte
	present bool
	version int
}

func (r rendered) same(o rendered) bool {
	return r.present == o.present && r.version == o.version && bytes.Equal(r.data, o.data)
}

func file(data []byte) rendered { return rendered{data: data, present: true} }

// part is one part of Kept and the file it is saved to.
type part struct {
	name string // its file under .ralph/ (the window's first)
	// unread: Load does not read the part (the run's own mark), so the
	// first Save writes (or removes) its file whatever it holds.
	unread bool
	render func(Kept) (rendered, error)
	// write saves r (the engine's k); nil: r.data to name, or name
	// removed when r is not present.
	write func(s *Store, k Kept, r rendered) error
	// meaning is what a failure to save r means.
	meaning func(r rendered) string
}

func always(words string) func(rendered) string { return func(rendered) string { return words } }

// parts are the parts of Kept that are files, in the order they are saved.
// The breaker's history and the session files are saved apart (Save).
var parts = []part{
	{name: ralphdir.CallCount, render: func(k Kept) (rendered, error) {
		return file([]byte(strconv.Itoa(k.Window.Count) + "\n" + k.Window.Hour + "\n")), nil
	}, write: func(s *Store, k Kept, _ rendered) error { return saveWindow(s.d, k.Window) },
		meaning: always("the next run counts this hour's calls from the count last saved")},
	{name: ralphdir.CircuitBreakerState, render: func(k Kept) (rendered, error) {
		b, err := ralphdir.MarshalJSON(k.Breaker)
		return file(b), err
	}, write: func(s *Store, k Kept, _ rendered) error { return SaveBreaker(s.d, k.Breaker) },
		meaning: always("the next run starts from the breaker state last saved")},
	{name: errorHistoryFile, render: func(k Kept) (rendered, error) {
		b, err := k.ErrorHistory.Marshal()
		return file(b), err
	}, write: func(s *Store, _ Kept, r rendered) error {
		err := s.d.WriteFile(errorHistoryFile, r.data)
		if err == nil {
			s.d.Remove(oldErrorHistoryFile) // gone or not, the new file is read first
		}
		return err
	}, meaning: always("the next run does not see this loop's errors when it looks for repeated ones")},
	{name: lastOutputLength, render: func(k Kept) (rendered, error) {
		return rendered{data: []byte(strconv.Itoa(k.OutputLength) + "\n"), present: true, version: k.OutputLengthUpdates}, nil
	}, meaning: always("the next run compares its output with an older length")},
	{name: loopDiffSummary, render: func(k Kept) (rendered, error) {
		if k.DiffSummary == "" {
			return rendered{}, nil
		}
		return file([]byte(k.DiffSummary + "\n")), nil
	}, meaning: func(r rendered) string {
		if r.present {
			return "a restarted run's first loop is not told what this loop changed"
		}
		return "a restarted run's first loop is told the same changes again"
	}},
	{name: loopStartSHA, render: func(k Kept) (rendered, error) {
		return file([]byte(k.LoopStartSHA + "\n")), nil
	}, meaning: always("it still names an earlier loop's start commit")},
	{name: writeHeartbeatTrigger, unread: true, render: func(k Kept) (rendered, error) {
		if k.WriteTimeout.IsZero() {
			return rendered{}, nil
		}
		return file([]byte(k.WriteTimeout.UTC().Format(time.RFC3339) + "\n")), nil
	}, meaning: func(r rendered) string {
		if r.present {
			return "a restarted run's next call is not told that this one was stopped for not writing"
		}
		return "a later call may be told again about an old write timeout"
	}},
	{name: qualityGateResults, render: func(k Kept) (rendered, error) {
		if k.Gates == nil {
			return rendered{}, nil
		}
		r := *k.Gates
		if r.CustomGates == nil {
			r.CustomGates = []gates.CustomGate{}
		}
		b, err := ralphdir.MarshalJSON(r)
		return file(b), err
	}, meaning: always("--status and the next run see the previous gate results")},
	{name: ralphdir.ResponseAnalysis, render: func(k Kept) (rendered, error) {
		if k.Analysis == nil {
			return rendered{}, nil
		}
		b, err := k.Analysis.Marshal()
		return file(b), err
	}, meaning: func(r rendered) string {
		if r.present {
			return "the exit checks and --status see the previous call's analysis"
		}
		return "the exit checks and --status still see the previous call's analysis"
	}},
	{name: exitSignals, render: func(k Kept) (rendered, error) {
		b, err := k.ExitSignals.Marshal()
		return rendered{data: b, present: true, version: k.ExitSignalsUpdates}, err
	}, meaning: always("the next run starts from the exit signals last saved")},
	{name: reviewLastSHA, render: func(k Kept) (rendered, error) {
		if sha := strings.TrimSpace(k.ReviewSHA); sha != "" {
			return file([]byte(sha + "\n")), nil
		}
		return file([]byte{}), nil
	}, meaning: always("a restarted run may review these commits again")},
	{name: reviewFindings, render: func(k Kept) (rendered, error) {
		if k.Findings == nil {
			return rendered{}, nil
		}
		return file(k.Findings.JSON()), nil
	}, meaning: func(r rendered) string {
		if r.present {
			return "a restarted run does not hand these findings to its next loop"
		}
		return "a restarted run hands the same findings to its next loop again"
	}},
}

// Save saves the kept state k whole: the session steps first, in order
// (each with its log lines), then each part of k whose file would change —
// those that changed since Load read them or Save last saved them, and
// the write-timeout mark, which Load does not read, the first time — each
// to its own file, atomically, and the breaker's new moves appended to its
// history. A part is not tried again until it changes again, whether its
// save worked or not. Before Load, only the session steps are saved: the
// rest is not the engine's yet.
//
// The error is every save that failed (errors.Join), each one line that
// names the file and says what the failure means; Save itself says
// nothing of it: the engine decides what it means.
func (s *Store) Save(k Kept) error {
	var errs []error
	for _, st := range k.SessionSteps {
		errs = append(errs, s.step(st))
	}
	if !s.loaded {
		return errors.Join(errs...)
	}
	if s.last == nil {
		s.last = map[string]rendered{}
	}
	if !s.historyReady {
		// As the bash loop's breaker start-up does: the history always
		// exists once the run checked its breaker.
		s.historyReady = true
		errs = append(errs, failed(s.d, ralphdir.CircuitBreakerState, ensureBreakerHistory(s.d),
			"the next run starts from the breaker state last saved"))
	}
	for _, p := range parts {
		r, err := p.render(k)
		if old, known := s.last[p.name]; err == nil && known && old.same(r) {
			continue
		}
		if err == nil {
			switch {
			case p.write != nil:
				err = p.write(s, k, r)
			case r.present:
				err = s.d.WriteFile(p.name, r.data)
			default:
				err = s.d.Remove(p.name)
			}
		}
		s.last[p.name] = r
		errs = append(errs, failed(s.d, p.name, err, p.meaning(r)))
	}
	for _, tr := range k.BreakerMoves {
		errs = append(errs, failed(s.d, ralphdir.CircuitBreakerState, appendBreakerHistory(s.d, tr),
			"the next run starts from the breaker state last saved"))
	}
	return errors.Join(errs...)
}

// loadedAs takes v, as Load read it, for the value last saved: a part is
// saved again when it changes. A breaker that was not there is saved at
// the first Save (its check stamps it).
func (s *Store) loadedAs(v Kept) {
	s.last = map[string]rendered{}
	s.loaded = true
	for _, p := range parts {
		if p.unread || p.name == ralphdir.CircuitBreakerState && !v.HaveBreaker {
			continue
		}
		if r, err := p.render(v); err == nil {
			s.last[p.name] = r
		}
	}
}

// step carries out one session step.
func (s *Store) step(st SessionStep) error {
	switch st.Kind {
	case SessionStart:
		_, err := s.sessions.start(st.At)
		return failed(s.d, ralphSession, err, "bmalph and --status do not see this run's session")
	case SessionTouch:
		return failed(s.d, ralphSession, s.sessions.touch(st.At), "its last_used keeps an older time")
	case SessionSaveID:
		if st.Driver != "" {
			return failed(s.d, fallbackSessionID(st.Driver), s.sessions.saveFallbackID(st.Driver, st.ID, st.At),
				"the next "+st.Driver+" call may not resume this session")
		}
		return failed(s.d, claudeSessionID, s.sessions.saveID(st.ID, st.At), "the next call may not resume this agent session")
	case SessionReset:
		err := s.sessions.reset(st.Reason, st.Loop, st.At)
		// The reset emptied .exit_signals (when there was one) and
		// removed .response_analysis: the engine's copies follow it.
		if s.last != nil {
			if b, merr := (analysis.ExitSignals{}).Marshal(); merr == nil {
				s.last[exitSignals] = rendered{data: b, present: true, version: s.last[exitSignals].version}
			}
			s.last[ralphdir.ResponseAnalysis] = rendered{}
		}
		return failed(s.d, ralphSession, err, "the next run may resume the session that ended")
	case SessionKeep:
		s.sessions.kept()
	}
	return nil
}

// WritePlan writes @fix_plan.md as the loop edited it (edit says why), or
// says, in one line, what could not be written and what that means.
func (s *Store) WritePlan(plan []byte, edit PlanEdit) error {
	meaning := "its finished stories stay expanded"
	if edit == PlanUnticked {
		meaning = "the tasks whose VERIFY_COMMAND failed stay ticked there"
	}
	return failed(s.d, ralphdir.FixPlan, s.d.WriteFile(ralphdir.FixPlan, plan), meaning)
}
