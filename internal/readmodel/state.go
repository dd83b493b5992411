package readmodel

import (
	"path/filepath"
	"time"

	"github.com/ralphloop/ralph_loop/analysis"
	"github.com/ralphloop/ralph_loop/breaker"
	"github.com/ralphloop/ralph_loop/internal/ralphdir"
	"github.com/ralphloop/ralph_loop/internal/store"
	"github.com/ralphloop/ralph_loop/internal/swarm"
	"github.com/ralphloop/ralph_loop/ratelimit"
	"github.com/ralphloop/ralph_loop/session"
)

// folderState is what a View is built from: the folder's state as the
// loop wrote it. Load and FromFiles read it from the files; Watch keeps it
// in memory.
type folderState struct {
	Status      []byte // status.json as written
	StatusFound bool   // status.json exists, readable or not
	StatusErr   error  // why status.json could not be read
	PID         int    // the loop holding the lock; 0 for none
	Paused      bool   // the pause file is there
	Plan        []byte // @fix_plan.md; nil when it is missing or cannot be read
	Analysis    *analysis.ResponseAnalysis
	Breaker     *breaker.State
	Session     *session.RalphSession // nil when there is none (or no id)
	Window      ratelimit.Window
	// Events is the end of the event log, whole lines, oldest first.
	Events []byte
	// Swarm is the swarm worker the folder is (its project is a
	// .swarm/worker-i worktree), as swarm.json has it; nil for a loop of
	// its own.
	Swarm *swarm.Membership
}

// The ends of the event log a View reads: --status needs the last event
// only; a dashboard's snapshot shows the timeline and the last events; an
// overview row needs the last event (the loop's phase).
const (
	statusTail  = 256 << 10
	pageTail    = 4 << 20
	summaryTail = 64 << 10
)

// readState reads d's state at now without writing a byte there, with the
// last tail bytes of the event log (across its rotated copies when
// rotated). The kept state (the breaker, the session, the last analysis,
// the call window) is read as the store's Peek reads it; a file Peek finds
// missing or damaged is left out (nil).
func readState(d *ralphdir.Dir, now time.Time, tail int64, rotated bool) folderState {
	var r folderState
	r.Status, r.StatusFound, r.StatusErr = d.ReadFile(ralphdir.Status)
	r.StatusFound = r.StatusFound || r.StatusErr != nil
	if held, _ := d.LockHolder(); held != nil {
		r.PID = held.PID
	}
	r.Paused = d.Exists(ralphdir.PauseFile)
	r.Plan = readPlan(d)
	kept, _ := store.Peek(d, now)
	r.Analysis = kept.Analysis
	if kept.HaveBreaker {
		r.Breaker = &kept.Breaker
	}
	r.Session = sessionOf(kept)
	r.Window = kept.Window
	names := []string{ralphdir.EventsLog}
	if rotated {
		names = ralphdir.WithRotated(ralphdir.EventsLog)
	}
	r.Events = tailLogs(d, names, tail)
	r.Swarm = swarm.MembershipOf(filepath.Dir(d.Root()))
	return r
}

// readPlan is @fix_plan.md, nil when it is missing or cannot be read.
func readPlan(d *ralphdir.Dir) []byte {
	if data, found, err := d.ReadFile(ralphdir.FixPlan); err == nil && found {
		return data
	}
	return nil
}

// sessionOf is the kept session, nil when there is none (or no id).
func sessionOf(kept store.Kept) *session.RalphSession {
	if kept.Session.SessionID == "" {
		return nil
	}
	return &kept.Session
}

// readSession is .ralph_session as the store just saved it, read back
// alone as Peek reads it; nil when it is missing, damaged or has no id.
// Its created_at is from the loop's clock, which is the one that saved it,
// so it is not checked against another clock for being in the future.
func readSession(d *ralphdir.Dir) *session.RalphSession {
	rs, err := store.PeekSession(d, endOfTime)
	if err != nil {
		return nil
	}
	return sessionOf(store.Kept{Session: rs})
}

// endOfTime is later than any created_at a session file can hold.
var endOfTime = time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC)
