package dashboard

import (
	"time"

	"github.com/ralphloop/ralph_loop/internal/events"
	"github.com/ralphloop/ralph_loop/internal/observe"
)

// Poker is the in-process dashboard as an observer of the loop: whatever
// the loop reports (a happening, what it says) calls poke, to have the
// project read again (Server.Poke, which never blocks).
func Poker(poke func()) observe.Observer { return poker(poke) }

type poker func()

var _ observe.Observer = poker(nil)

func (p poker) RunStarted(events.Moment, events.Start)            { p() }
func (p poker) CallStarted(events.Moment)                         { p() }
func (p poker) CallProgress(events.Moment, events.AgentWorking)   { p() }
func (p poker) CallEnded(events.Moment, events.Call)              { p() }
func (p poker) WaitStarted(events.Moment, events.Wait)            { p() }
func (p poker) WaitEnded(events.Moment, events.Wait)              { p() }
func (p poker) LimitHit(events.Moment, events.Wait)               { p() }
func (p poker) BreakerMoved(events.Moment, events.BreakerChange)  { p() }
func (p poker) UsageChanged(events.Moment)                        { p() }
func (p poker) DriverSwitched(events.Moment, events.DriverSwitch) { p() }
func (p poker) UsageProjected(events.Moment, events.Projection)   { p() }
func (p poker) Tracked(events.Moment, events.Task)                { p() }
func (p poker) Reviewed(events.Moment, events.Review)             { p() }
func (p poker) Stopped(events.Moment, events.End)                 { p() }
func (p poker) Output(time.Time, []byte)                          { p() }
func (p poker) Warned(time.Time, events.Level, error)             { p() }
func (p poker) Said(time.Time, events.Notice)                     { p() }
