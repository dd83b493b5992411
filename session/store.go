package session

import (
	"math/rand/v2"

	"github.com/ralphloop/ralph_loop/internal/ralphdir"
)

// Log levels passed to the Store's log function, as the bash loop names them.
const (
	LevelInfo = "INFO"
	LevelWarn = "WARN"
)

// Store reads and writes a project's session files: .claude_session_id,
// .ralph_session and .ralph_session_history.
type Store struct {
	d   *ralphdir.Dir
	log func(level, msg string)

	// Verbose adds the bash loop's verbose-only line "Cleared exit signals
	// file" to Reset.
	Verbose bool

	randN func(n int) int // the <n> of ralph-<epoch>-<n>
}

// New returns the Store of d. log receives the bash loop's log lines
// (level LevelInfo or LevelWarn, message without timestamp); nil discards
// them. Warnings about quarantined files come from d's own warn function.
func New(d *ralphdir.Dir, log func(level, msg string)) *Store {
	if log == nil {
		log = func(string, string) {}
	}
	return &Store{d: d, log: log, randN: rand.IntN}
}
