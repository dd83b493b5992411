package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/ralphloop/ralph_loop/internal/events"
	"github.com/ralphloop/ralph_loop/internal/ralphdir"
	"github.com/ralphloop/ralph_loop/session"
)

// Log levels of the session files' log lines, as the bash loop names them.
const (
	levelInfo = "INFO"
	levelWarn = "WARN"
)

// sessions reads and writes a project's session files:
// .claude_session_id (and each fallback driver's), .ralph_session and
// .ralph_session_history. The decisions and the files' shapes are package
// session's.
type sessions struct {
	d   *ralphdir.Dir
	log func(level, msg string)
	// verbose adds the bash loop's verbose-only line "Cleared exit signals
	// file" to reset.
	verbose bool
	randN   func(n int) int // the <n> of ralph-<epoch>-<n>
}

// newSessions returns the sessions of d. log receives the bash loop's log
// lines (level levelInfo or levelWarn, message without timestamp); nil
// discards them. Warnings about quarantined files come from d's own warn
// function.
func newSessions(d *ralphdir.Dir, log func(level, msg string)) *sessions {
	if log == nil {
		log = func(string, string) {}
	}
	return &sessions{d: d, log: log, randN: rand.IntN}
}

// current reads .ralph_session at now: the session, active when it has a
// SessionID (session.Decode checked its created_at), zero when the file is
// missing or invalid. An invalid file is moved aside by ralphdir (with its
// warning) and reported as corrupt; the error is only for a file that cannot
// be read or moved.
func (s *sessions) current(now time.Time) (rs session.RalphSession, corrupt bool, err error) {
	found, err := s.d.ReadValid(ralphSession, func(b []byte) error {
		r, err := session.Decode(b, now)
		if err != nil {
			corrupt = true
			return err
		}
		rs = r
		return nil
	})
	switch {
	case err != nil:
		return session.RalphSession{}, true, fmt.Errorf("read ralph session: %w", err)
	case corrupt || !found:
		return session.RalphSession{}, corrupt, nil
	}
	return rs, false, nil
}

// start is the bash loop's init_session_tracking, once at start-up: an
// active session from an earlier run is kept as it is; otherwise a new
// active session ralph-<epoch>-<n> is written (after the warning "Corrupted
// session file detected, recreating..." when the old file was invalid).
func (s *sessions) start(now time.Time) (session.RalphSession, error) {
	cur, corrupt, err := s.current(now)
	if err != nil {
		return session.RalphSession{}, err
	}
	if cur.SessionID != "" {
		return cur, nil
	}
	if corrupt {
		s.log(levelWarn, "Corrupted session file detected, recreating...")
	}
	ts := events.ISOTime(now)
	rs := session.RalphSession{SessionID: s.newRalphID(now), CreatedAt: ts, LastUsed: ts}
	if err := s.write(rs); err != nil {
		return session.RalphSession{}, err
	}
	s.log(levelInfo, "Initialized session tracking (session: "+rs.SessionID+")")
	return rs, nil
}

// touch is the bash loop's update_session_last_used, at the start of every
// iteration: an active session gets last_used = now; anything else is left
// alone.
func (s *sessions) touch(now time.Time) error {
	cur, _, err := s.current(now)
	if err != nil || cur.SessionID == "" {
		return err
	}
	cur.LastUsed = events.ISOTime(now)
	return s.write(cur)
}

// sync mirrors a saved agent session id into .ralph_session: created_at is
// kept when the active session already has this id, else it is now.
func (s *sessions) sync(id string, now time.Time) error {
	cur, _, err := s.current(now)
	if err != nil {
		return err
	}
	ts := events.ISOTime(now)
	rs := session.RalphSession{SessionID: id, CreatedAt: ts, LastUsed: ts}
	if cur.SessionID == id {
		rs.CreatedAt = cur.CreatedAt
	}
	return s.write(rs)
}

// reset is the bash loop's reset_session: .ralph_session becomes inactive
// with reason (session.ReasonManualReset when empty) and reset_at = now;
// .claude_session_id (and any fallback driver's session file) is removed;
// .exit_signals, when it exists, is replaced by the empty one-liner; .response_analysis is removed; a history entry
// {timestamp, "active", "reset", reason, loop} is appended; and "Session
// reset: <reason>" is logged. loop is the current loop number, 0 outside
// the loop (--reset-session, --reset-circuit). A failure to write the
// history is logged as a warning and does not fail the reset, as in the
// bash loop; the other steps are all attempted and their errors joined.
func (s *sessions) reset(reason string, loop int, now time.Time) error {
	if reason == "" {
		reason = session.ReasonManualReset
	}
	ts := events.ISOTime(now)
	var errs []error
	if err := s.write(session.RalphSession{ResetAt: ts, ResetReason: reason}); err != nil {
		errs = append(errs, err)
	}
	if err := s.clearID(); err != nil {
		errs = append(errs, err)
	}
	if err := s.clearFallbackIDs(); err != nil {
		errs = append(errs, err)
	}
	if s.d.Exists(exitSignals) {
		if err := s.d.WriteFile(exitSignals, []byte(emptyExitSignals)); err != nil {
			errs = append(errs, fmt.Errorf("clear exit signals: %w", err))
		} else if s.verbose {
			s.log(levelInfo, "Cleared exit signals file")
		}
	}
	if err := s.d.Remove(ralphdir.ResponseAnalysis); err != nil {
		errs = append(errs, err)
	}
	if err := s.appendHistory(reason, loop, now); err != nil {
		s.log(levelWarn, fmt.Sprintf("Could not record the session reset in %s: %v", ralphSessionHistory, err))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("reset session (%s): %w", reason, err)
	}
	s.log(levelInfo, "Session reset: "+reason)
	return nil
}

func (s *sessions) readHistory() ([]json.RawMessage, error) {
	var raw []json.RawMessage
	if _, err := s.d.ReadJSON(ralphSessionHistory, &raw); err != nil {
		return nil, fmt.Errorf("read session history: %w", err)
	}
	return raw, nil
}

// appendHistory records the reset in .ralph_session_history
// (session.AppendHistory).
func (s *sessions) appendHistory(reason string, loop int, now time.Time) error {
	raw, err := s.readHistory()
	if err != nil {
		return err
	}
	if raw, err = session.AppendHistory(raw, reason, loop, now); err != nil {
		return err
	}
	return s.d.WriteJSON(ralphSessionHistory, raw)
}

func (s *sessions) write(rs session.RalphSession) error {
	if err := s.d.WriteJSON(ralphSession, rs); err != nil {
		return fmt.Errorf("write ralph session: %w", err)
	}
	return nil
}

// resumeID is the bash loop's init_claude_session: it returns the agent
// session id to resume, or "" to start a new session, and logs the
// bash loop's line for the decision ("Resuming session: <id>... (<h>h old)",
// "Session expired (<h>h old, max <H>h), starting new session", "Starting new
// session", or the warning "Could not determine session age, starting new
// session").
//
// The session's age is the largest of: the time since .claude_session_id was
// last written (the bash loop's only measure, which makes expiry an idle
// time), the time since a legacy JSON file's "timestamp", and the time since
// created_at of an active .ralph_session holding the same id (the session's
// real age, as the expiry is documented). An age of expiry or more expires
// the session and removes the file. An id that session.ValidID rejects ("0", "null",
// whitespace, ...) is never resumed: the file is quarantined with a warning.
func (s *sessions) resumeID(now time.Time, expiry time.Duration) (string, error) {
	info, err := s.d.Lstat(claudeSessionID)
	if errors.Is(err, fs.ErrNotExist) {
		s.log(levelInfo, "Starting new session")
		return "", nil
	}
	if err != nil || info.ModTime().Unix() <= 0 {
		s.log(levelWarn, "Could not determine session age, starting new session")
		return "", s.clearID()
	}
	var f session.IDFile
	found, err := s.d.ReadValid(claudeSessionID, func(b []byte) error {
		var perr error
		f, perr = session.ParseIDFile(b)
		return perr
	})
	if err != nil {
		return "", fmt.Errorf("read agent session id: %w", err)
	}
	if !found { // quarantined (ralphdir warned) or gone meanwhile
		s.log(levelInfo, "Starting new session")
		return "", nil
	}

	var active session.RalphSession
	if f.ID != "" {
		// An unreadable .ralph_session only means no created_at to go by.
		if rs, _, err := s.current(now); err == nil {
			active = rs
		}
	}
	age := f.Age(info.ModTime(), active, now)
	if age >= expiry {
		s.log(levelInfo, fmt.Sprintf("Session expired (%dh old, max %sh), starting new session", wholeHours(age), hoursText(expiry)))
		return "", s.clearID()
	}
	if f.ID == "" {
		s.log(levelInfo, "Starting new session")
		return "", nil
	}
	s.log(levelInfo, fmt.Sprintf("Resuming session: %s... (%dh old)", short(f.ID), wholeHours(age)))
	return f.ID, nil
}

// saveID is the end of the bash loop's save_claude_session (and the
// analyzer's store_session_id): the id is written to .claude_session_id with
// a newline and mirrored into .ralph_session (created_at kept when the active
// session already has this id). "Saved session: <id>..." is logged when the
// id is new to the file (a new session, or the agent handed back another id);
// a resumed call that hands back the id it resumed leaves the file as it is
// and logs nothing (the bash loop rewrites and logs it after every call).
// Surrounding whitespace is trimmed. An empty id is ignored silently; an id
// session.ValidID rejects is ignored with a warning, so a parse failure's "0" or
// "null" never replaces a good id.
func (s *sessions) saveID(id string, now time.Time) error {
	id = strings.TrimSpace(id)
	if id == "" {
		return nil
	}
	if !session.ValidID(id) {
		s.log(levelWarn, fmt.Sprintf("Ignoring invalid session id %s from the agent's output; keeping the previous session", session.Quote(id)))
		return nil
	}
	changed, err := s.storeID(claudeSessionID, id)
	if err != nil {
		return fmt.Errorf("save agent session id: %w", err)
	}
	if err := s.sync(id, now); err != nil {
		return err
	}
	if changed {
		s.log(levelInfo, "Saved session: "+short(id)+"...")
	}
	return nil
}

// kept says, as a reset is said, that a stop kept the agent's session
// for the next run (KEEP_SESSION_ON_STOP): one line naming it, nothing
// when there is no session (or its file cannot be read) to keep. It
// writes nothing.
func (s *sessions) kept() {
	b, found, err := s.d.ReadFile(claudeSessionID)
	if err != nil || !found {
		return
	}
	if f, err := session.ParseIDFile(b); err == nil && f.ID != "" {
		s.log(levelInfo, "Session kept for the next run: "+short(f.ID)+"... (KEEP_SESSION_ON_STOP=true)")
	}
}

// storeID writes id and a newline to the session file name unless it
// holds exactly that already; changed is whether the id differs from the
// one the file held (none when it was missing or unreadable).
func (s *sessions) storeID(name, id string) (changed bool, err error) {
	want := []byte(id + "\n")
	old, found, rerr := s.d.ReadFile(name)
	if rerr == nil && found && bytes.Equal(old, want) {
		return false, nil
	}
	prev := ""
	if rerr == nil && found {
		if f, perr := session.ParseIDFile(old); perr == nil {
			prev = f.ID
		}
	}
	if err := s.d.WriteFile(name, want); err != nil {
		return false, err
	}
	return prev != id, nil
}

// clearID removes .claude_session_id; a missing file is fine.
func (s *sessions) clearID() error {
	return s.d.Remove(claudeSessionID)
}

// fallbackResumeID is ResumeID for the fallback driver's own session file
// (fallbackSessionID(driver)), so that one CLI's session id is
// never handed to another: the same validation and expiry, the age taken
// from the file alone (.ralph_session follows the main driver's session),
// and log lines that name the driver.
func (s *sessions) fallbackResumeID(driver string, now time.Time, expiry time.Duration) (string, error) {
	name := fallbackSessionID(driver)
	info, err := s.d.Lstat(name)
	if errors.Is(err, fs.ErrNotExist) {
		s.log(levelInfo, "Starting new "+driver+" session")
		return "", nil
	}
	if err != nil || info.ModTime().Unix() <= 0 {
		s.log(levelWarn, "Could not determine the age of the "+driver+" session, starting new session")
		return "", s.d.Remove(name)
	}
	var f session.IDFile
	found, err := s.d.ReadValid(name, func(b []byte) error {
		var perr error
		f, perr = session.ParseIDFile(b)
		return perr
	})
	if err != nil {
		return "", fmt.Errorf("read %s session id: %w", driver, err)
	}
	if !found || f.ID == "" {
		s.log(levelInfo, "Starting new "+driver+" session")
		return "", nil
	}
	age := f.Age(info.ModTime(), session.RalphSession{}, now)
	if age >= expiry {
		s.log(levelInfo, fmt.Sprintf("%s session expired (%dh old, max %sh), starting new session", driver, wholeHours(age), hoursText(expiry)))
		return "", s.d.Remove(name)
	}
	s.log(levelInfo, fmt.Sprintf("Resuming %s session: %s... (%dh old)", driver, short(f.ID), wholeHours(age)))
	return f.ID, nil
}

// saveFallbackID keeps the fallback driver's session id in its own file,
// as SaveID keeps the main driver's (an empty id ignored, an invalid one
// ignored with a warning, logged only when it is new to the file);
// .ralph_session is left alone.
func (s *sessions) saveFallbackID(driver, id string, now time.Time) error {
	id = strings.TrimSpace(id)
	if id == "" {
		return nil
	}
	if !session.ValidID(id) {
		s.log(levelWarn, fmt.Sprintf("Ignoring invalid %s session id %s from the agent's output; keeping the previous session", driver, session.Quote(id)))
		return nil
	}
	changed, err := s.storeID(fallbackSessionID(driver), id)
	if err != nil {
		return fmt.Errorf("save %s session id: %w", driver, err)
	}
	if changed {
		s.log(levelInfo, "Saved "+driver+" session: "+short(id)+"...")
	}
	return nil
}

// clearFallbackIDs removes every fallback driver's session file (a reset
// ends them with the main one). Quarantined copies are left alone.
func (s *sessions) clearFallbackIDs() error {
	matches, _ := filepath.Glob(filepath.Join(s.d.Root(), ralphdir.FallbackSessionPrefix+"*"))
	var errs []error
	for _, m := range matches {
		name := filepath.Base(m)
		if strings.Contains(strings.TrimPrefix(name, ralphdir.FallbackSessionPrefix), ".") {
			continue
		}
		errs = append(errs, s.d.Remove(name))
	}
	return errors.Join(errs...)
}

// newRalphID makes a Ralph session id as the bash loop does:
// ralph-<epoch seconds>-<0..32767>.
func (s *sessions) newRalphID(now time.Time) string {
	return fmt.Sprintf("ralph-%d-%d", now.Unix(), s.randN(32768))
}

// short is the bash loop's "<first 20 chars>" of an id for log lines.
func short(id string) string {
	r := []rune(id)
	if len(r) > 20 {
		r = r[:20]
	}
	return string(r)
}
func wholeHours(d time.Duration) int64 {
	if d < 0 {
		return 0
	}
	return int64(d / time.Hour)
}

// hoursText is the configured expiry in hours: "24", or "1.5" for a
// duration that is not whole hours.
func hoursText(d time.Duration) string {
	if d%time.Hour == 0 {
		return strconv.FormatInt(int64(d/time.Hour), 10)
	}
	return strconv.FormatFloat(d.Hours(), 'f', -1, 64)
}
