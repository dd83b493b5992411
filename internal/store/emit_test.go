package store

import (
	"time"

	"github.com/ralphloop/ralph_loop/internal/events"
	"github.com/ralphloop/ralph_loop/internal/observe"
)

// emit reports the happening whose event line is e, as the engine does:
// the tests below speak in the event log's terms.
func emit(b *observe.Fan, e events.Event) {
	m := events.Moment{TS: e.TS, Snapshot: e.Snapshot, Action: e.Action, Status: e.Status}
	until := time.Time{}
	if e.Until != nil {
		until = *e.Until
	}
	w := events.Wait{Kind: e.Wait, Delay: time.Duration(e.DelaySecs * float64(time.Second)), Until: until, Skipped: e.Skipped, Reason: e.Reason}
	switch e.Type {
	case events.RunStarted:
		b.RunStarted(m, events.Start{Driver: e.Driver, Version: e.Version})
	case events.IterationStarted:
		b.CallStarted(m)
	case events.IterationProgress:
		b.CallProgress(m, events.AgentWorking{Last: e.Message, Elapsed: w.Delay})
	case events.IterationCompleted, events.IterationFailed, events.IterationTimedOut, events.IterationIdle, events.IterationDenied:
		c := events.Call{Outcome: e.Type, Iteration: e.Iteration, DriverExitCode: e.DriverExitCode}
		if e.Reason != "" && e.DriverExitCode != nil {
			// A failed call: its exit code says how (Failure.Words).
			c.Failure = &events.Failure{Code: *e.DriverExitCode}
		}
		b.CallEnded(m, c)
	case events.DelayStarted:
		b.WaitStarted(m, w)
	case events.DelayEnded:
		b.WaitEnded(m, w)
	case events.Paused:
		b.WaitStarted(m, events.Wait{Kind: events.WaitPause})
	case events.Resumed:
		b.WaitEnded(m, events.Wait{Kind: events.WaitPause})
	case events.RateLimited, events.UsageLimited:
		b.LimitHit(m, w)
	case events.BreakerChanged:
		b.BreakerMoved(m, events.BreakerChange{From: e.From, To: e.To, Reason: e.Reason})
	case events.UsageUpdated:
		b.UsageChanged(m)
	case events.DriverSwitched:
		b.DriverSwitched(m, events.DriverSwitch{FromDriver: e.From, ToDriver: e.To, Why: e.Why, Until: until})
	case events.ReviewCompleted:
		b.Reviewed(m, events.Review{Level: events.Info, Text: e.Message})
	case events.RunFinished:
		end := events.End{Reason: e.Reason, DriverExitCode: e.DriverExitCode, Stop: e.Stop}
		if e.ExitCode != nil {
			end.ExitCode = *e.ExitCode
		}
		b.Stopped(m, end)
	default:
		panic("no report makes a line of type " + e.Type)
	}
}
