// Package session keeps the two session notions of ralph_loop.sh: the agent
// session id that --resume gets (.ralph/.claude_session_id, with its expiry)
// and the Ralph session lifecycle that bmalph reads (.ralph/.ralph_session
// and the capped .ralph/.ralph_session_history). File names, JSON fields,
// reset reasons and log lines are the bash loop's, so that bmalph and a
// .ralph/ folder left by the bash loop keep working (deviations are in
// docs/COMPATIBILITY.md); all files go through ralphdir (atomic writes,
// corrupt files quarantined with a warning).
//
// Agent session ids are validated (ValidID) before they are saved or
// resumed, so "0", "null", empty or malformed ids never reach an agent's
// command line. A session's age for the expiry is its real age where it is
// known (created_at of the matching active .ralph_session), never less than
// the time since the id file was written.
//
// The engine's use:
//
//	s := session.New(d, logFunc)           // logFunc(level "INFO"/"WARN", msg)
//	s.Start(now)                           // start-up: keep an active session or create ralph-<epoch>-<n>
//	s.Touch(now)                           // every iteration: last_used
//	id, err := s.ResumeID(now, expiry)     // before a call, when continuity is on
//	s.SaveID(idFromOutput, now)            // after a successful call
//	s.Reset(session.ReasonProjectComplete, loop, now)
//
// API:
//
//	func New(d *ralphdir.Dir, log func(level, msg string)) *Store
//	func (s *Store) ResumeID(now time.Time, expiry time.Duration) (string, error)
//	func (s *Store) SaveID(id string, now time.Time) error
//	func (s *Store) ClearID() error
//	func (s *Store) Start(now time.Time) (RalphSession, error)
//	func (s *Store) Touch(now time.Time) error
//	func (s *Store) Current(now time.Time) (RalphSession, State, error)
//	func (s *Store) Reset(reason string, loop int, now time.Time) error
//	func (s *Store) NewRalphID(now time.Time) string
//	func ValidID(id string) bool
//	func FormatISO(t time.Time) string; func ParseISO(s string) (time.Time, bool)
//	Reason* constants, HistoryCap, MaxIDLen, LevelInfo, LevelWarn
package session
