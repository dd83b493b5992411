package store

import (
	"encoding/json"
	"io"
	"os"
	"strings"
	"time"

	"github.com/ralphloop/ralph_loop/breaker"
	"github.com/ralphloop/ralph_loop/internal/ralphdir"
	"github.com/ralphloop/ralph_loop/ratelimit"
)

// Store is a project's .ralph/ state: it loads what earlier runs kept, once
// at start-up (Load), and saves the kept state whole when the engine hands
// it over (Save, save.go), each changed part to its file, atomically. A
// save that fails comes back as an error, which the engine decides about.
type Store struct {
	d        *ralphdir.Dir
	sessions *sessions
	warn     func(error)
	logKeep  int // LOG_KEEP: calls whose logs are kept, 0 = all

	// What Save last saved, or Load read, of each part (by its file);
	// loaded: Load has read the state; historyReady: the breaker's
	// history has been made sure of.
	last         map[string]rendered
	loaded       bool
	historyReady bool
	// oldHistoryGone: the error history's earlier file was removed after
	// this run first wrote the new one (once a run is enough: nothing of
	// this run writes the old name).
	oldHistoryGone bool
}

// SetLogKeep keeps the logs of the last n agent calls (LOG_KEEP); 0 keeps
// all.
func (s *Store) SetLogKeep(n int) { s.logKeep = n }

// New returns the state store of d. log receives the session files' log
// lines (level and message), warn what Load could not do and carried on
// from (nil: none is shown).
func New(d *ralphdir.Dir, log func(level, msg string), warn func(error), verbose bool) *Store {
	s := newSessions(d, log)
	s.verbose = verbose
	if warn == nil {
		warn = func(error) {}
	}
	return &Store{d: d, sessions: s, warn: warn}
}

// jsonStateFiles are the JSON files under .ralph/ the loop writes.
var jsonStateFiles = []string{
	ralphdir.Status, progressFile, ralphdir.ResponseAnalysis, exitSignals,
	ralphSession, ralphSessionHistory, ralphdir.CircuitBreakerState,
	circuitBreakerHistory, qualityGateResults, reviewFindings,
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

// ResumeID is the agent session to resume ("" for a new one); an expired
// one is removed.
func (s *Store) ResumeID(now time.Time, expiry time.Duration) (string, error) {
	return s.sessions.resumeID(now, expiry)
}

// FallbackResumeID is the fallback driver's own session to resume ("" for
// a new one); an expired one is removed.
func (s *Store) FallbackResumeID(driver string, now time.Time, expiry time.Duration) (string, error) {
	return s.sessions.fallbackResumeID(driver, now, expiry)
}

// ResetSession ends the session for a command outside the loop
// (--reset-session, --reset-circuit): as resetSession, with loop 0, and
// its error as it is.
func (s *Store) ResetSession(reason string, now time.Time) error {
	return s.sessions.reset(reason, 0, now)
}

// LoadBreaker reads the breaker alone, before the start-up proper (a run
// whose breaker is open stops first); a damaged file is moved aside with a
// warning and reads as CLOSED.
func (s *Store) LoadBreaker() (breaker.State, error) { return loadBreaker(s.d) }

// PeekWindow reads the hour's call window alone, as Peek does (nothing
// moved aside or written; a damaged file reads as none): what a run the
// open breaker refuses says of the hour's calls.
func (s *Store) PeekWindow() ratelimit.Window { return peekWindow(s.d) }

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
// own is truncated in place; anything else in its place (a link, a
// planted folder) is replaced atomically, so that no other file is ever
// written through it (ralphdir's StartLog).
func (s *Store) OpenLiveLog(header string) (io.WriteCloser, error) {
	return s.d.StartLog(ralphdir.LiveLog, header)
}

// RemoveLog removes one of the call's logs.
func (s *Store) RemoveLog(name string) { s.d.Remove(name) }

// ReplaceLog replaces one of the call's logs with data, atomically and
// without comparing first: the caller cuts the log down, and a comparison
// would read the log back.
func (s *Store) ReplaceLog(name string, data []byte) error {
	return s.d.ReplaceFile(name, data)
}
