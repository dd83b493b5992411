package console

import (
	"time"

	"github.com/ralphloop/ralph_loop/internal/events"
	"github.com/ralphloop/ralph_loop/internal/observe"
)

// The tests' stand-ins for the reports that are not a Notice.
type (
	warned struct {
		level events.Level
		err   error
	}
	output    string
	rateLimit struct {
		calls, max int
		wait       time.Duration
	}
	pause         bool // true: the pause starts; false: it ends
	stopCondition struct{ stop events.Stop }
	usageHit      struct {
		usage   events.UsageWindow
		warning bool
	}
	runStarted struct{}
	completion struct {
		reason               string
		loops, calls, failed int
		ev                   events.Evidence
	}
)

// show reports v to o at ts, by the method that carries it.
func show(o observe.Observer, ts time.Time, v any) {
	m := events.Moment{TS: ts}
	switch v := v.(type) {
	case events.AgentWorking:
		o.CallProgress(m, v)
	case runStarted:
		o.RunStarted(m, events.Start{Driver: "claude-code", Version: "1.0"})
	case events.Notice:
		o.Said(ts, v)
	case warned:
		o.Warned(ts, v.level, v.err)
	case output:
		o.Output(ts, []byte(v))
	case events.Call:
		o.CallEnded(m, v)
	case events.Wait:
		o.WaitStarted(m, v)
	case events.End:
		o.Stopped(m, v)
	case events.BreakerChange:
		o.BreakerMoved(m, v)
	case events.DriverSwitch:
		o.DriverSwitched(m, v)
	case rateLimit:
		m.CallsThisHour, m.MaxCalls = v.calls, v.max
		o.LimitHit(m, events.Wait{Kind: "rate_limit", Delay: v.wait})
	case pause:
		if v {
			o.WaitStarted(m, events.Wait{Kind: events.WaitPause})
		} else {
			o.WaitEnded(m, events.Wait{Kind: events.WaitPause})
		}
	case usageHit:
		o.LimitHit(m, events.Wait{Kind: "usage_limit", Usage: &v.usage, Warning: v.warning})
	case stopCondition:
		o.Stopped(m, events.End{Stop: &v.stop, Condition: true})
	case completion:
		m.Loop, m.Calls, m.FailedCalls = v.loops, v.calls, v.failed
		o.Stopped(m, events.End{Reason: v.reason, Evidence: &v.ev})
	default:
		panic("no report carries this value")
	}
}
