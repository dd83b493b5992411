package store

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/ralphloop/ralph_loop/analysis"
	"github.com/ralphloop/ralph_loop/breaker"
	"github.com/ralphloop/ralph_loop/internal/events"
	"github.com/ralphloop/ralph_loop/internal/gates"
	"github.com/ralphloop/ralph_loop/internal/observe"
	"github.com/ralphloop/ralph_loop/internal/ralphdir"
	"github.com/ralphloop/ralph_loop/internal/review"
	"github.com/ralphloop/ralph_loop/ratelimit"
	"github.com/ralphloop/ralph_loop/session"
)

// ErrorHistoryFile keeps the error lines of recent loops, so that the same
// errors repeating across loops are recognised (stuck-loop detection). It
// lives under logs/, which bmalph's .gitignore hides: the bash loop has no
// such file, so it must not show in git status. oldErrorHistoryFile is
// where earlier versions kept it.
const (
	ErrorHistoryFile    = "logs/.error_history"
	oldErrorHistoryFile = ".error_history"
)

// emptyExitSignals is the .exit_signals a project starts with, spelled as
// the bash loop writes it.
const emptyExitSignals = `{"test_only_loops": [], "done_signals": [], "completion_indicators": []}` + "\n"

// Store is a project's .ralph/ state: it loads what earlier runs kept, once
// at start-up, and, as an observer of the engine, saves every change of
// the kept state (the observe.Keeper methods, apply.go), atomically. A
// save's error goes back through observe.Fan, which reports it as one
// warning; the engine decides what else it means (today: the run goes on).
type Store struct {
	observe.Nop // the store saves state changes only (apply.go)
	d           *ralphdir.Dir
	sessions    *session.Store
	logKeep     int // LOG_KEEP: calls whose logs are kept, 0 = all
}

// SetLogKeep keeps the logs of the last n agent calls (LOG_KEEP); 0 keeps
// all.
func (s *Store) SetLogKeep(n int) { s.logKeep = n }

// New returns the state store of d. log receives the session files' log
// lines (level and message), as session.New takes them.
func New(d *ralphdir.Dir, log func(level, msg string), verbose bool) *Store {
	s := session.New(d, log)
	s.Verbose = verbose
	return &Store{d: d, sessions: s}
}

// jsonStateFiles are the JSON files under .ralph/ the loop writes.
var jsonStateFiles = []string{
	ralphdir.Status, ralphdir.Progress, ralphdir.ResponseAnalysis, ralphdir.ExitSignals,
	ralphdir.RalphSession, ralphdir.RalphSessionHistory, ralphdir.CircuitBreakerState,
	ralphdir.CircuitBreakerHistory, ralphdir.QualityGateResults, ralphdir.ReviewFindings,
}

// Repair runs before anything is loaded: it removes the temp files an
// interrupted atomic write left (returning how many), and moves aside,
// with a warning, every JSON state file that is empty or not JSON, so
// that none is silently overwritten.
func (s *Store) Repair() (removedTemp int) {
	n := s.d.CleanTemp()
	for _, name := range jsonStateFiles {
		var v json.RawMessage
		s.d.ReadJSON(name, &v)
	}
	return n
}

// Load reads the state at start-up. A state file that is not valid is
// moved aside by the directory (with a warning) and counts as missing; a
// missing .exit_signals is created empty, as the bash loop does. Only the
// call window and the breaker can fail the start.
func (s *Store) Load() (events.Saved, error) {
	var v events.Saved
	var err error
	if !s.d.Exists(ralphdir.ExitSignals) {
		s.d.WriteFile(ralphdir.ExitSignals, []byte(emptyExitSignals))
	}
	if v.Window, err = ratelimit.Load(s.d); err != nil {
		return v, err
	}
	if v.Breaker, err = breaker.Load(s.d); err != nil {
		return v, err
	}
	v.HaveExitSignals, _ = s.d.ReadValid(ralphdir.ExitSignals, func(b []byte) error {
		es, err := analysis.ParseExitSignals(b)
		v.ExitSignals = es
		return err
	})
	s.d.ReadValid(ralphdir.ResponseAnalysis, func(b []byte) error {
		ra, err := analysis.ParseResponseAnalysis(b)
		if err == nil {
			v.Analysis = &ra
		}
		return err
	})
	s.d.ReadValid(ErrorHistoryFile, func(b []byte) error {
		h, err := analysis.ParseErrorHistory(b)
		v.ErrorHistory = h
		return err
	})
	s.d.ReadValid(ralphdir.LastOutputLength, func(b []byte) error {
		n, err := strconv.Atoi(strings.TrimSpace(string(b)))
		v.OutputLength = n
		return err
	})
	if res, err := gates.Load(s.d); err == nil {
		v.Gates = res
	}
	if f, found, err := review.Load(s.d); err == nil && found {
		v.Findings = &f
	}
	v.ReviewSHA, _ = review.LoadLastSHA(s.d)
	if data, found, _ := s.d.ReadFile(ralphdir.LoopDiffSummary); found {
		v.DiffSummary = strings.TrimSpace(string(data))
	}
	return v, nil
}

// saveWindow writes the call count and its hour.
func (s *Store) saveWindow(w ratelimit.Window) error { return ratelimit.Save(s.d, w) }

// saveAnalysis writes .response_analysis.
func (s *Store) saveAnalysis(ra analysis.ResponseAnalysis) error {
	b, err := ra.Marshal()
	if err != nil {
		return fmt.Errorf("encode %s: %w", s.d.Path(ralphdir.ResponseAnalysis), err)
	}
	return s.d.WriteFile(ralphdir.ResponseAnalysis, b)
}

// removeAnalysis removes .response_analysis (a failed call has none).
func (s *Store) removeAnalysis() { s.d.Remove(ralphdir.ResponseAnalysis) }

// saveExitSignals writes .exit_signals.
func (s *Store) saveExitSignals(es analysis.ExitSignals) error {
	b, err := es.Marshal()
	if err != nil {
		return err
	}
	return s.d.WriteFile(ralphdir.ExitSignals, b)
}

// saveErrorHistory writes the error history (and drops the file of its
// old place).
func (s *Store) saveErrorHistory(h analysis.ErrorHistory) {
	if b, err := h.Marshal(); err == nil {
		if s.d.WriteFile(ErrorHistoryFile, b) == nil {
			s.d.Remove(oldErrorHistoryFile)
		}
	}
}

// saveOutputLength writes .last_output_length.
func (s *Store) saveOutputLength(n int) {
	s.d.WriteFile(ralphdir.LastOutputLength, []byte(strconv.Itoa(n)+"\n"))
}

// saveGates writes the quality-gate results.
func (s *Store) saveGates(r *gates.Results) error { return gates.Save(s.d, r) }

// saveFindings writes the review findings.
func (s *Store) saveFindings(f review.Findings) error { return review.Save(s.d, f) }

// removeFindings removes the review findings (they reach one loop only).
func (s *Store) removeFindings() { s.d.Remove(ralphdir.ReviewFindings) }

// saveReviewSHA writes the commit the last review saw.
func (s *Store) saveReviewSHA(sha string) { review.SaveLastSHA(s.d, sha) }

// saveLoopStart writes the commit a loop started from.
func (s *Store) saveLoopStart(sha string) {
	s.d.WriteFile(ralphdir.LoopStartSHA, []byte(sha+"\n"))
}

// saveDiffSummary writes the loop's diff summary for the next loop's
// context.
func (s *Store) saveDiffSummary(sum string) {
	s.d.WriteFile(ralphdir.LoopDiffSummary, []byte(sum+"\n"))
}

// removeDiffSummary removes the diff summary once a loop has taken it.
func (s *Store) removeDiffSummary() { s.d.Remove(ralphdir.LoopDiffSummary) }

// markWriteTimeout records a write-heartbeat kill for the next call's
// context.
func (s *Store) markWriteTimeout(now time.Time) {
	s.d.WriteFile(ralphdir.WriteHeartbeatTrigger, []byte(now.UTC().Format(time.RFC3339)+"\n"))
}

// clearWriteTimeout removes that record.
func (s *Store) clearWriteTimeout() { s.d.Remove(ralphdir.WriteHeartbeatTrigger) }

// savePlan writes @fix_plan.md (finished stories collapsed).
func (s *Store) savePlan(plan []byte) error { return s.d.WriteFile(ralphdir.FixPlan, plan) }

// startSession starts the session tracking at start-up.
func (s *Store) startSession(now time.Time) error {
	_, err := s.sessions.Start(now)
	return err
}

// touchSession marks the session used at the start of an iteration.
func (s *Store) touchSession(now time.Time) error { return s.sessions.Touch(now) }

// ResumeID is the agent session to resume ("" for a new one); an expired
// one is removed.
func (s *Store) ResumeID(now time.Time, expiry time.Duration) (string, error) {
	return s.sessions.ResumeID(now, expiry)
}

// FallbackResumeID is the fallback driver's own session to resume ("" for
// a new one); an expired one is removed.
func (s *Store) FallbackResumeID(driver string, now time.Time, expiry time.Duration) (string, error) {
	return s.sessions.FallbackResumeID(driver, now, expiry)
}

// saveSessionID keeps the agent's session id.
func (s *Store) saveSessionID(id string, now time.Time) error { return s.sessions.SaveID(id, now) }

// resetSession ends the session with reason: the session files are reset,
// .exit_signals (when present) emptied and .response_analysis removed.
func (s *Store) resetSession(reason string, loop int, now time.Time) error {
	return s.sessions.Reset(reason, loop, now)
}

// CreateLog creates (or truncates) one of the call's logs under .ralph/.
// Creating a call's output log starts the call: the logs of older calls
// beyond LOG_KEEP (this one counted) are removed then, oldest first.
func (s *Store) CreateLog(name string) (*os.File, error) {
	if stamp, ok := strings.CutPrefix(name, ralphdir.LogsDir+"/claude_output_"); ok && s.logKeep > 0 && !strings.HasSuffix(stamp, "_stream.log") {
		s.d.PruneCallLogs(s.logKeep, strings.TrimSuffix(stamp, ".log"))
	}
	return s.d.Create(name)
}

// OpenLiveLog starts logs/live.log with header and opens it for appending;
// it is rotated as the other logs are (LOG_MAX_MB). A plain file of its
// own is truncated in place (one open per call, where an atomic replace
// costs a temp file, an fsync and a rename); anything else in its place (a
// link, a planted folder) is replaced atomically, so that no other file
// is ever written through it.
func (s *Store) OpenLiveLog(header string) (io.WriteCloser, error) {
	f, err := s.startLiveLog(header)
	if err != nil {
		return nil, err
	}
	return s.d.NewRotating(ralphdir.LiveLog, f, int64(len(header))), nil
}

// startLiveLog writes header as the whole of live.log and opens it for
// appending.
func (s *Store) startLiveLog(header string) (*os.File, error) {
	p := s.d.Path(ralphdir.LiveLog)
	if st, err := s.d.Lstat(ralphdir.LiveLog); err == nil && st.Mode().IsRegular() {
		if n, ok := ralphdir.Links(st); ok && n == 1 {
			f, err := ralphdir.OpenNoFollow(p, os.O_WRONLY|os.O_TRUNC|os.O_APPEND, 0)
			if err == nil {
				if _, err := f.WriteString(header); err == nil {
					return f, nil
				}
				f.Close()
			}
		}
	}
	if err := s.d.WriteFile(ralphdir.LiveLog, []byte(header)); err != nil {
		return nil, err
	}
	return s.d.OpenAppend(ralphdir.LiveLog)
}

// RemoveLog removes one of the call's logs.
func (s *Store) RemoveLog(name string) { s.d.Remove(name) }

// ReplaceLog replaces one of the call's logs with data, atomically and
// without comparing first: the caller cuts the log down, and a comparison
// would read the log back.
func (s *Store) ReplaceLog(name string, data []byte) error {
	return s.d.ReplaceFile(name, data)
}
