package dashboard

import (
	"time"

	"github.com/ralphloop/ralph_loop/analysis"
	"github.com/ralphloop/ralph_loop/breaker"
	"github.com/ralphloop/ralph_loop/internal/events"
	"github.com/ralphloop/ralph_loop/internal/gates"
	"github.com/ralphloop/ralph_loop/internal/observe"
	"github.com/ralphloop/ralph_loop/internal/review"
	"github.com/ralphloop/ralph_loop/ratelimit"
)

// Poker is the in-process dashboard as an observer of the loop: whatever
// the loop reports (a happening, what it says, a change of the kept
// state) calls poke, to have the project read again (Server.Poke, which
// never blocks). It saves nothing, so it never fails a change.
func Poker(poke func()) observe.Observer { return poker(poke) }

type poker func()

var _ observe.Observer = poker(nil)

func (p poker) RunStarted(events.Moment, string, string)                      { p() }
func (p poker) CallStarted(events.Moment)                                     { p() }
func (p poker) CallProgress(events.Moment, events.AgentWorking)               { p() }
func (p poker) CallEnded(events.Moment, events.Call)                          { p() }
func (p poker) WaitStarted(events.Moment, events.Wait)                        { p() }
func (p poker) WaitEnded(events.Moment, events.Wait)                          { p() }
func (p poker) LimitHit(events.Moment, events.Wait)                           { p() }
func (p poker) BreakerMoved(events.Moment, events.BreakerChange)              { p() }
func (p poker) UsageChanged(events.Moment)                                    { p() }
func (p poker) DriverSwitched(events.Moment, events.DriverSwitch)             { p() }
func (p poker) Reviewed(events.Moment, events.Level, string)                  { p() }
func (p poker) Stopped(events.Moment, events.End)                             { p() }
func (p poker) Output(time.Time, []byte)                                      { p() }
func (p poker) Warned(time.Time, events.Level, error)                         { p() }
func (p poker) Said(time.Time, events.Notice)                                 { p() }
func (p poker) WindowChanged(ratelimit.Window) error                          { p(); return nil }
func (p poker) BreakerChecked(breaker.State, *breaker.Transition, bool) error { p(); return nil }
func (p poker) BreakerRecorded(breaker.State, *breaker.Transition) error      { p(); return nil }
func (p poker) AnalysisRecorded(analysis.ResponseAnalysis) error              { p(); return nil }
func (p poker) AnalysisCleared() error                                        { p(); return nil }
func (p poker) ExitSignalsChanged(analysis.ExitSignals) error                 { p(); return nil }
func (p poker) ErrorHistoryChanged(analysis.ErrorHistory) error               { p(); return nil }
func (p poker) OutputLengthChanged(int) error                                 { p(); return nil }
func (p poker) GatesRecorded(*gates.Results) error                            { p(); return nil }
func (p poker) FindingsRecorded(review.Findings) error                        { p(); return nil }
func (p poker) FindingsCleared() error                                        { p(); return nil }
func (p poker) ReviewSHARecorded(string) error                                { p(); return nil }
func (p poker) LoopStarted(string) error                                      { p(); return nil }
func (p poker) DiffSummaryRecorded(string) error                              { p(); return nil }
func (p poker) DiffSummaryTaken() error                                       { p(); return nil }
func (p poker) WriteTimeoutMarked(time.Time) error                            { p(); return nil }
func (p poker) WriteTimeoutCleared() error                                    { p(); return nil }
func (p poker) PlanCollapsed([]byte) error                                    { p(); return nil }
func (p poker) SessionStarted(time.Time) error                                { p(); return nil }
func (p poker) SessionTouched(time.Time) error                                { p(); return nil }
func (p poker) SessionIDSaved(string, time.Time) error                        { p(); return nil }
func (p poker) FallbackSessionIDSaved(string, string, time.Time) error        { p(); return nil }
func (p poker) SessionReset(string, int, time.Time) error                     { p(); return nil }
