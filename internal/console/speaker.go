package console

import (
	"fmt"
	"time"

	"github.com/ralphloop/ralph_loop/internal/events"
)

// speaker shows every report a person is told of, for the console and for
// logs/ralph.log alike: the words of each happening and notice (its
// value's Lines), laid out (layout) and handed to show. It implements
// every method of observe.Observer itself, so the compiler makes it
// answer each new happening.
type speaker struct {
	l    layout
	show func(ts time.Time, ps []part)
}

// say shows lines at ts.
func (s *speaker) say(ts time.Time, lines []events.Line) { s.show(ts, s.l.parts(lines)) }

func (s *speaker) RunStarted(m events.Moment, st events.Start) { s.say(m.TS, st.Lines(m)) }

// CallStarted has no words of its own: the notices of the call say it
// (events.CallStarting).
func (s *speaker) CallStarted(events.Moment) {}

func (s *speaker) CallProgress(m events.Moment, w events.AgentWorking) { s.say(m.TS, w.Lines(m)) }

func (s *speaker) CallEnded(m events.Moment, c events.Call) { s.say(m.TS, c.Lines(m)) }

func (s *speaker) WaitStarted(m events.Moment, w events.Wait) { s.say(m.TS, w.StartLines(m)) }

func (s *speaker) WaitEnded(m events.Moment, w events.Wait) { s.say(m.TS, w.EndLines(m)) }

func (s *speaker) LimitHit(m events.Moment, w events.Wait) { s.say(m.TS, w.LimitLines(m)) }

func (s *speaker) BreakerMoved(m events.Moment, c events.BreakerChange) { s.say(m.TS, c.Lines(m)) }

// UsageChanged has no words: --status and the dashboard show the usage.
func (s *speaker) UsageChanged(events.Moment) {}

func (s *speaker) DriverSwitched(m events.Moment, d events.DriverSwitch) { s.say(m.TS, d.Lines(m)) }

func (s *speaker) UsageProjected(m events.Moment, p events.Projection) { s.say(m.TS, p.Lines(m)) }

func (s *speaker) Tracked(m events.Moment, t events.Task) { s.say(m.TS, t.Lines(m)) }

func (s *speaker) Reviewed(m events.Moment, r events.Review) { s.say(m.TS, r.Lines(m)) }

func (s *speaker) Stopped(m events.Moment, e events.End) { s.say(m.TS, e.Lines(m)) }

func (s *speaker) Output(ts time.Time, data []byte) {
	s.say(ts, []events.Line{{Show: events.Output, Text: string(data)}})
}

func (s *speaker) Warned(ts time.Time, level events.Level, err error) {
	s.say(ts, []events.Line{{Level: level, Text: fmt.Sprint(err)}})
}

func (s *speaker) Said(ts time.Time, n events.Notice) { s.say(ts, n.Lines()) }
