package engine

import (
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/ralphloop/ralph_loop/drivers"
	"github.com/ralphloop/ralph_loop/internal/config"
	"github.com/ralphloop/ralph_loop/internal/events"
	"github.com/ralphloop/ralph_loop/internal/observe"
)

type noticeList struct {
	observe.Observer
	mu sync.Mutex
	ns []events.Notice
}

func (l *noticeList) Said(_ time.Time, n events.Notice) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.ns = append(l.ns, n)
}

// TestTicksEverySecond: while a call runs in the default mode the ticking
// line is noted once a second with the time, the output so far and the
// last tool call, and cleared once when the call ends.
func TestTicksEverySecond(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		got := &noticeList{Observer: observe.Ignore}
		bus := observe.New(time.Now, "test")
		bus.Add(got)
		l := &loop{bus: bus, s: config.Config{Driver: "codex"}, deps: Deps{Now: time.Now}}

		tk := l.startTicks(drivers.FormatCodexJSONL)
		tool := `{"type":"item.started","item":{"id":"i1","type":"command_execution","command":"go test"}}` + "\n"
		time.Sleep(1500 * time.Millisecond)
		tk.Write([]byte(tool))
		time.Sleep(2 * time.Second)
		tk.stop()

		want := []events.Notice{
			events.CallTick{Agent: "codex", Elapsed: time.Second},
			events.CallTick{Agent: "codex", Elapsed: 2 * time.Second, Bytes: int64(len(tool)), Tool: "command_execution"},
			events.CallTick{Agent: "codex", Elapsed: 3 * time.Second, Bytes: int64(len(tool)), Tool: "command_execution"},
			events.CallTickOver{},
		}
		if diff := cmp.Diff(want, got.ns); diff != "" {
			t.Errorf("notices (-want +got):\n%s", diff)
		}
	})
}
