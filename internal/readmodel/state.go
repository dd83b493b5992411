package readmodel

import (
	"encoding/json"

	"github.com/ralphloop/ralph_loop/analysis"
	"github.com/ralphloop/ralph_loop/breaker"
	"github.com/ralphloop/ralph_loop/internal/ralphdir"
	"github.com/ralphloop/ralph_loop/internal/store"
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
}

// The ends of the event log a View reads: --status needs the last event
// only; a dashboard's snapshot shows the timeline and the last events; an
// overview row needs the last event (the loop's phase).
const (
	statusTail  = 256 << 10
	pageTail    = 4 << 20
	summaryTail = 64 << 10
)

// readState reads d's state without writing a byte there, with the last
// tail bytes of the event log (across its rotated copies when rotated).
func readState(d *ralphdir.Dir, tail int64, rotated bool) folderState {
	var r folderState
	r.Status, r.StatusFound, r.StatusErr = d.ReadFile(ralphdir.Status)
	r.StatusFound = r.StatusFound || r.StatusErr != nil
	if held, _ := d.LockHolder(); held != nil {
		r.PID = held.PID
	}
	r.Paused = d.Exists(ralphdir.PauseFile)
	r.Plan = readPlan(d)
	var ra analysis.ResponseAnalysis
	if data, found, err := d.ReadFile(ralphdir.ResponseAnalysis); err == nil && found && json.Unmarshal(data, &ra) == nil {
		r.Analysis = &ra
	}
	var bs breaker.State
	if data, found, err := d.ReadFile(ralphdir.CircuitBreakerState); err == nil && found && json.Unmarshal(data, &bs) == nil {
		r.Breaker = &bs
	}
	r.Session = readSession(d)
	r.Window = store.PeekWindow(d)
	names := []string{ralphdir.EventsLog}
	if rotated {
		names = ralphdir.WithRotated(ralphdir.EventsLog)
	}
	r.Events = tailLogs(d, names, tail)
	return r
}

// readPlan is @fix_plan.md, nil when it is missing or cannot be read.
func readPlan(d *ralphdir.Dir) []byte {
	if data, found, err := d.ReadFile(ralphdir.FixPlan); err == nil && found {
		return data
	}
	return nil
}

// readSession is .ralph_session, nil when it is missing, damaged or has no
// id.
func readSession(d *ralphdir.Dir) *session.RalphSession {
	var s session.RalphSession
	data, found, err := d.ReadFile(ralphdir.RalphSession)
	if err != nil || !found || json.Unmarshal(data, &s) != nil || s.SessionID == "" {
		return nil
	}
	return &s
}
