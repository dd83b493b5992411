package engine

import (
	"time"

	"github.com/ralphloop/ralph_loop/internal/events"
)

// progressTicker writes progress.json's executing form every 10 s while
// the agent runs, after the record written when the call starts (as the
// bash loop does: its first write comes at its first poll, right after the
// start), so bmalph's dashboard shows the running call at once.
func (l *loop) progressTicker(c *call, tail func() string, done <-chan struct{}) {
	t := time.NewTicker(10 * time.Second)
	defer t.Stop()
	for tick := 1; ; tick++ {
		select {
		case <-done:
			return
		case <-t.C:
		}
		l.progressTick(tail, tick)
	}
}

// progressTick writes one executing record, tick*10 s into the call.
func (l *loop) progressTick(tail func() string, tick int) {
	l.bus.CallProgress(l.at("", ""), events.AgentWorking{Agent: l.display(), Last: tail(), Elapsed: time.Duration(tick) * 10 * time.Second})
}

func (l *loop) writeProgressFailed() {
	l.bus.CallEnded(l.at("", ""), events.Call{Outcome: events.IterationFailed, Iteration: &events.Iteration{Outcome: "interrupted", Driver: l.s.Driver}})
}
