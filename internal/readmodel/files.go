package readmodel

import (
	"bytes"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/ralphloop/ralph_loop/internal/dashboard"
	"github.com/ralphloop/ralph_loop/internal/events"
	"github.com/ralphloop/ralph_loop/internal/ralphdir"
	"github.com/ralphloop/ralph_loop/internal/swarm"
)

// Files names the .ralph/ folder a dashboard shows, and how.
type Files struct {
	Name     string
	Dir      *ralphdir.Dir
	MaxCalls int                       // the configured hourly limit, shown while status.json has none
	Now      func() time.Time          // the clock
	Text     func(events.Event) string // an event in a few words, for the last events
	// Quota, when the usage governor is on, reads the machine's ledger.
	Quota Quota
}

// Quota is the usage governor's view for a dashboard: the ledger read at
// a time, and a stamp that changes when the ledger does (another loop on
// the machine recorded a call).
type Quota interface {
	View(now time.Time) *QuotaView
	Stamp() string
}

// FromFiles is the dashboard source that reads f's folder each time it is
// asked (--serve: the loop runs in another process, or none does).
func FromFiles(f Files) dashboard.Source { return &folder{f} }

// folder reads a View from the files.
type folder struct{ f Files }

// stampFiles are the files whose change changes the snapshot.
var stampFiles = []string{ralphdir.Status, ralphdir.EventsLog, ralphdir.FixPlan, ralphdir.CircuitBreakerState,
	ralphdir.CallCount, ralphdir.PauseFile, ralphdir.ResponseAnalysis, ralphdir.LockFile}

// Stamps are the size, time and inode of each file the snapshot reads, the
// lock's holder and the clock hour (the call count rolls over with it);
// and those of live.log.
func (s *folder) Stamps() (snap, live string) {
	f := s.f
	var b strings.Builder
	for _, name := range stampFiles {
		b.WriteString(fileStamp(f.Dir, name))
	}
	if held, _ := f.Dir.LockHolder(); held != nil {
		fmt.Fprintf(&b, "pid%d;", held.PID)
	}
	fmt.Fprintf(&b, "%d;%s", f.Now().Unix()/3600, swarm.StateStamp(filepath.Dir(f.Dir.Root())))
	if f.Quota != nil {
		b.WriteString(";" + f.Quota.Stamp())
	}
	return b.String(), fileStamp(f.Dir, ralphdir.LiveLog)
}

func fileStamp(d *ralphdir.Dir, name string) string {
	st, err := d.Lstat(name)
	if err != nil {
		return "-;"
	}
	return fmt.Sprintf("%d.%d.%d;", st.Size(), st.ModTime().UnixNano(), fileID(st))
}

// Snapshot is the page's View: the folder's state as --status reads it,
// and the timeline from the end of the event log (across a rotation) as
// --report reads it; the end read once gives the timeline, the last
// events and the last event the phase is told from.
func (s *folder) Snapshot() any {
	f := s.f
	return pageOf(f, readState(f.Dir, f.Now(), pageTail, true), f.Now())
}

// pageOf is the dashboard's snapshot of r.
func pageOf(f Files, r folderState, now time.Time) any {
	name, maxCalls, text := f.Name, f.MaxCalls, f.Text
	v := build(r, maxCalls, now)
	if f.Quota != nil {
		v.Quota = f.Quota.View(now)
	}
	addTimeline(v, r, text)
	return &page{Name: name, View: v, timeline: v.Timeline}
}

// Summary is the project's row in the overview; it reads the state files
// and the last event, never the timeline.
func (s *folder) Summary() any {
	f := s.f
	return summaryOf(build(readState(f.Dir, f.Now(), summaryTail, true), f.MaxCalls, f.Now()))
}

// Live is the end of live.log.
func (s *folder) Live() string {
	return liveOf(tailLogs(s.f.Dir, []string{ralphdir.LiveLog}, liveTail))
}

// liveTail is the end of live.log shown.
const liveTail = 48 << 10

// ansi matches the terminal escapes a live renderer may have written.
var ansi = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)`)
})

// liveOf is the end of live.log from a whole line on, as the agent's text
// (liveText), without terminal escapes.
func liveOf(data []byte) string {
	if len(data) == liveTail {
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			data = data[i+1:]
		}
	}
	return strings.TrimLeft(strings.ToValidUTF8(ansi().ReplaceAllString(liveText(data), ""), "\uFFFD"), "\n")
}
