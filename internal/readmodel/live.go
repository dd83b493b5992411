package readmodel

import (
	"bytes"
	"strconv"
	"sync"

	"github.com/ralphloop/ralph_loop/internal/ralphdir"
)

// memory is the dashboard source of the loop running in this process
// (--dashboard, see Watch): the folder's state is read once, when it is
// made, and then kept in memory as the loop reports (update), so that a
// page's poll or the loop's every change costs no read of the state files
// nor of the event log. What the agent writes stays on disk and is read when it
// changed: the plan and live.log (without --live the agent's raw output
// goes there and nowhere else); and the pause file's presence is looked
// at (another process's --pause sets it).
type memory struct {
	f Files

	mu        sync.Mutex
	st        folderState
	version   uint64 // moves at every update
	planStamp string // the plan's stamp when st.Plan was read
}

// newMemory is the live source of f's folder, read once now.
func newMemory(f Files) *memory {
	stamp := fileStamp(f.Dir, ralphdir.FixPlan)
	return &memory{f: f, st: readState(f.Dir, f.Now(), pageTail, true), planStamp: stamp}
}

// update changes the folder's state in memory, as the loop changes what
// the files hold; the event log's end is kept to its last pageTail bytes.
func (l *memory) update(change func(*folderState)) {
	l.mu.Lock()
	defer l.mu.Unlock()
	change(&l.st)
	if over := len(l.st.Events) - pageTail; over > 0 {
		cut := over
		if i := bytes.IndexByte(l.st.Events[over:], '\n'); i >= 0 {
			cut += i + 1
		}
		l.st.Events = l.st.Events[cut:]
	}
	l.version++
}

// Stamps are the update count, the plan's stamp, the pause file's
// presence and the clock hour (the call count rolls over with it); and
// live.log's.
func (l *memory) Stamps() (snap, live string) {
	l.mu.Lock()
	v := l.version
	l.mu.Unlock()
	f := l.f
	snap = strconv.FormatUint(v, 10) + ";" + fileStamp(f.Dir, ralphdir.FixPlan) + strconv.FormatBool(f.Dir.Exists(ralphdir.PauseFile)) + ";" +
		strconv.FormatInt(f.Now().Unix()/3600, 10)
	if f.Quota != nil {
		snap += ";" + f.Quota.Stamp()
	}
	return snap, fileStamp(f.Dir, ralphdir.LiveLog)
}

// Snapshot is the page's View, from memory.
func (l *memory) Snapshot() any {
	r := l.current()
	return pageOf(l.f, r, l.f.Now())
}

// current is a copy of the state held, with the plan read again if it
// changed and the pause file's presence now.
func (l *memory) current() folderState {
	d := l.f.Dir
	stamp := fileStamp(d, ralphdir.FixPlan)
	l.mu.Lock()
	moved := stamp != l.planStamp
	l.mu.Unlock()
	var plan []byte
	if moved {
		plan = readPlan(d)
	}
	l.mu.Lock()
	if moved {
		l.st.Plan, l.planStamp = plan, stamp
	}
	r := l.st
	l.mu.Unlock()
	r.Paused = d.Exists(ralphdir.PauseFile)
	return r
}

// Live is the end of live.log.
func (l *memory) Live() string { return (&folder{l.f}).Live() }
