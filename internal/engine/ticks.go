package engine

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/ralphloop/ralph_loop/drivers"
	"github.com/ralphloop/ralph_loop/internal/events"
)

// ticks follows one call's stdout for the ticking line of the default
// mode: it counts the bytes, finds the last tool call, and notes an
// an events.CallTick every second until stop.
type ticks struct {
	bytes atomic.Int64
	tool  *drivers.LastTool
	done  chan struct{}
	wg    sync.WaitGroup
}

// startTicks starts the ticking line of a call whose stdout is in format.
func (l *loop) startTicks(format string) *ticks {
	t := &ticks{tool: drivers.NewLastTool(format), done: make(chan struct{})}
	start, agent := l.now(), l.display()
	t.wg.Go(func() {
		tk := time.NewTicker(time.Second)
		defer tk.Stop()
		for {
			select {
			case <-t.done:
				l.bus.Note(events.CallTickOver{})
				return
			case <-tk.C:
			}
			l.bus.Note(events.CallTick{Agent: agent, Elapsed: l.now().Sub(start), Bytes: t.bytes.Load(), Tool: t.tool.Name()})
		}
	})
	return t
}

// Write counts and reads a chunk of the agent's stdout.
func (t *ticks) Write(p []byte) (int, error) {
	t.bytes.Add(int64(len(p)))
	return t.tool.Write(p)
}

// stop ends the ticking line; it is cleared before stop returns.
func (t *ticks) stop() {
	close(t.done)
	t.wg.Wait()
}
