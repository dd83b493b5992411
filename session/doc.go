// Package session keeps the two session notions of ralph_loop.sh: the agent
// session id that --resume gets (.ralph/.claude_session_id, with its expiry)
// and the Ralph session lifecycle that bmalph reads (.ralph/.ralph_session
// and the capped .ralph/.ralph_session_history). File names, JSON fields,
// reset reasons and log lines are the bash loop's, so that bmalph and a
// .ralph/ folder left by the bash loop keep working (deviations are in
// docs/COMPATIBILITY.md).
//
// Agent session ids are validated (ValidID) before they are saved or
// resumed, so "0", "null", empty or malformed ids never reach an agent's
// command line. A session's age for the expiry is its real age where it is
// known (created_at of the matching active .ralph_session), never less than
// the time since the id file was written.
//
// The package is pure: it holds the files' shapes and the rules (which id
// may be resumed, what makes .ralph_session valid, the reset reasons and
// history entry); the state store (internal/store) reads and writes the
// files, works out a session's age and words the bash loop's log lines.
//
// API:
//
//	type RalphSession (active when SessionID != "")
//	func Decode(b []byte, now time.Time) (RalphSession, error)   // .ralph_session
//	type IDFile; func ParseIDFile(b []byte) (IDFile, error)      // .claude_session_id
//	func ValidID(id string) bool; func Quote(id string) string
//	func AppendHistory(history []json.RawMessage, reason string, loop int, now time.Time) ([]json.RawMessage, error)
//	Reason* constants
package session
