package readmodel

import (
	"bytes"
	"strconv"
	"sync"

	"github.com/ralphloop/ralph_loop/internal/ralphdir"
)

// Live is the dashboard source of the loop running in this process
// (--dashboard): its Raw is read from the folder once, when it is made,
// and then kept in memory by the loop (Update), so that a page's poll or
// the loop's every change costs no read of the state files nor of the
// event log. What the agent writes stays on disk and is read when it
// changed: the plan and live.log (without --live the agent's raw output
// goes there and nowhere else); and the pause file's presence is looked
// at (another process's --pause sets it).
type Live struct {
	files *Files

	mu        sync.Mutex
	raw       Raw
	version   uint64 // moves at every Update
	planStamp string // the plan's stamp when raw.Plan was read
}

// NewLive is the live source of f's folder, read once now.
func NewLive(f *Files) *Live {
	stamp := fileStamp(f.Dir, ralphdir.FixPlan)
	return &Live{files: f, raw: readRaw(f.Dir, pageTail, true), planStamp: stamp}
}

// Update changes the View's Raw in memory, as the loop changes what the
// files hold; Raw.Events is kept to its last pageTail bytes.
func (l *Live) Update(change func(*Raw)) {
	l.mu.Lock()
	defer l.mu.Unlock()
	change(&l.raw)
	if over := len(l.raw.Events) - pageTail; over > 0 {
		cut := over
		if i := bytes.IndexByte(l.raw.Events[over:], '\n'); i >= 0 {
			cut += i + 1
		}
		l.raw.Events = l.raw.Events[cut:]
	}
	l.version++
}

// Stamps are the update count, the plan's stamp, the pause file's
// presence and the clock hour (the call count rolls over with it); and
// live.log's.
func (l *Live) Stamps() (snap, live string) {
	l.mu.Lock()
	v := l.version
	l.mu.Unlock()
	f := l.files
	return strconv.FormatUint(v, 10) + ";" + fileStamp(f.Dir, ralphdir.FixPlan) + strconv.FormatBool(f.Dir.Exists(ralphdir.PauseFile)) + ";" +
		strconv.FormatInt(f.Now().Unix()/3600, 10), fileStamp(f.Dir, ralphdir.LiveLog)
}

// Snapshot is the page's View, from memory.
func (l *Live) Snapshot() any {
	r := l.current()
	return pageOf(l.files.Name, r, l.files.MaxCalls, l.files.Now(), l.files.Text)
}

// current is a copy of the Raw held, with the plan read again if it
// changed and the pause file's presence now.
func (l *Live) current() Raw {
	d := l.files.Dir
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
		l.raw.Plan, l.planStamp = plan, stamp
	}
	r := l.raw
	l.mu.Unlock()
	r.Paused = d.Exists(ralphdir.PauseFile)
	return r
}

// Live is the end of live.log.
func (l *Live) Live() string { return l.files.Live() }
