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
// the loop reports (an event, a notice, a change of the kept state) calls
// it, to have the project read again (Server.Poke, which never blocks).
// It saves nothing, so it never fails a change.
type Poker func()

var _ observe.Observer = Poker(nil)

func (p Poker) Event(events.Event)                                            { p() }
func (p Poker) Notice(time.Time, events.Notice)                               { p() }
func (p Poker) WindowChanged(ratelimit.Window) error                          { p(); return nil }
func (p Poker) BreakerChecked(breaker.State, *breaker.Transition, bool) error { p(); return nil }
func (p Poker) BreakerRecorded(breaker.State, *breaker.Transition) error      { p(); return nil }
func (p Poker) AnalysisRecorded(analysis.ResponseAnalysis) error              { p(); return nil }
func (p Poker) AnalysisCleared() error                                        { p(); return nil }
func (p Poker) ExitSignalsChanged(analysis.ExitSignals) error                 { p(); return nil }
func (p Poker) ErrorHistoryChanged(analysis.ErrorHistory) error               { p(); return nil }
func (p Poker) OutputLengthChanged(int) error                                 { p(); return nil }
func (p Poker) GatesRecorded(*gates.Results) error                            { p(); return nil }
func (p Poker) FindingsRecorded(review.Findings) error                        { p(); return nil }
func (p Poker) FindingsCleared() error                                        { p(); return nil }
func (p Poker) ReviewSHARecorded(string) error                                { p(); return nil }
func (p Poker) LoopStarted(string) error                                      { p(); return nil }
func (p Poker) DiffSummaryRecorded(string) error                              { p(); return nil }
func (p Poker) DiffSummaryTaken() error                                       { p(); return nil }
func (p Poker) WriteTimeoutMarked(time.Time) error                            { p(); return nil }
func (p Poker) WriteTimeoutCleared() error                                    { p(); return nil }
func (p Poker) PlanCollapsed([]byte) error                                    { p(); return nil }
func (p Poker) SessionStarted(time.Time) error                                { p(); return nil }
func (p Poker) SessionTouched(time.Time) error                                { p(); return nil }
func (p Poker) SessionIDSaved(string, time.Time) error                        { p(); return nil }
func (p Poker) FallbackSessionIDSaved(string, string, time.Time) error        { p(); return nil }
func (p Poker) SessionReset(string, int, time.Time) error                     { p(); return nil }
