package engine

import (
	"io"
	"os"
	"time"

	"github.com/ralphloop/ralph_loop/breaker"
	"github.com/ralphloop/ralph_loop/internal/store"
	"github.com/ralphloop/ralph_loop/ratelimit"
)

// State is what the engine reads of the state earlier runs kept: the
// .ralph/ state store (package store) in production. The engine loads it
// once at start-up (Repair, then Load) and from then on keeps the state in
// memory as one value (store.Kept); it never writes through State. Its
// keeper (Deps.Keeper, keep.go) saves that value whole at a few named
// points of each iteration.
//
// Repair and ResumeID are reads with the bash loop's repairs attached: a
// file an interrupted write left is removed, a corrupt one moved aside,
// an expired agent session id dropped.
type State interface {
	Repair() (removedTemp int)
	// LoadBreaker reads the breaker alone, before the start-up proper.
	LoadBreaker() (breaker.State, error)
	// PeekWindow reads the hour's call window alone, writing nothing.
	PeekWindow() ratelimit.Window
	// Load reads the kept state; err is a state the run cannot start
	// from (a file it could not create is warned of, and the run goes on).
	Load(now time.Time) (store.Kept, error)
	ResumeID(now time.Time, expiry time.Duration) (string, error)
	// FallbackResumeID is ResumeID for FALLBACK_DRIVER's own session.
	FallbackResumeID(driver string, now time.Time, expiry time.Duration) (string, error)
}

// Logs opens the agent's logs under .ralph/ (its output, stderr, stream
// copy, live.log, review logs), so that the engine itself opens no file
// for writing. Logs are not state: nothing is decided from them later.
type Logs interface {
	CreateLog(name string) (*os.File, error)
	OpenLiveLog(header string) (io.WriteCloser, error)
	RemoveLog(name string)
	ReplaceLog(name string, data []byte) error
}
