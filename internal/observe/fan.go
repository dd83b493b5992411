package observe

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/ralphloop/ralph_loop/analysis"
	"github.com/ralphloop/ralph_loop/breaker"
	"github.com/ralphloop/ralph_loop/internal/events"
	"github.com/ralphloop/ralph_loop/internal/gates"
	"github.com/ralphloop/ralph_loop/internal/review"
	"github.com/ralphloop/ralph_loop/ratelimit"
)

// Fan hands what the engine reports to every observer, one at a time, in
// the order they were added; events and notices share one order. It is
// safe for concurrent use.
type Fan struct {
	mu    sync.Mutex
	now   func() time.Time
	runID string
	obs   []Observer
	words Words

	kmu sync.Mutex // held while a state change is handed over
}

// Words turn the typed values an event carries into the text fields its
// JSON keeps (run_finished's message, a failed call's reason): the
// console's wording, given by whoever builds the fan, so the engine
// reports values and one function words each of them.
type Words struct {
	Stop    func(events.Stop) string
	Failure func(events.Failure) string
}

// New returns a fan stamping events with now() and runID.
func New(now func() time.Time, runID string) *Fan { return &Fan{now: now, runID: runID} }

// SetWords sets the words of the events reported from now on.
func (f *Fan) SetWords(w Words) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.words = w
}

// Add registers observers.
func (f *Fan) Add(obs ...Observer) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.obs = append(f.obs, obs...)
}

// Emit stamps e (version, time, run id, the words of its values) and hands
// it to every observer.
func (f *Fan) Emit(e events.Event) {
	f.mu.Lock()
	defer f.mu.Unlock()
	e.V = events.SchemaVersion
	if e.TS.IsZero() {
		e.TS = f.now()
	}
	e.RunID = f.runID
	if e.Delay != 0 && e.DelaySecs == 0 {
		e.DelaySecs = e.Delay.Seconds()
	}
	if e.Stop != nil && e.Message == "" && f.words.Stop != nil {
		e.Message = f.words.Stop(*e.Stop)
	}
	if e.Failure != nil && e.Reason == "" && f.words.Failure != nil {
		e.Reason = f.words.Failure(*e.Failure)
	}
	for _, o := range f.obs {
		o.Event(e)
	}
}

// Note hands n, stamped with the time, to every observer.
func (f *Fan) Note(n events.Notice) {
	f.mu.Lock()
	defer f.mu.Unlock()
	ts := f.now()
	for _, o := range f.obs {
		o.Notice(ts, n)
	}
}

// Log notes a line whose text is composed outside the engine
// (events.Logged): format and args as for fmt.Sprintf, or a plain text
// without args.
func (f *Fan) Log(level events.Level, format string, args ...any) {
	msg := format
	if len(args) > 0 {
		msg = fmt.Sprintf(format, args...)
	}
	f.Note(events.Logged{Level: level, Text: msg})
}

// Infof and Warnf are shorthands for Log.
func (f *Fan) Infof(format string, args ...any) { f.Log(events.Info, format, args...) }
func (f *Fan) Warnf(format string, args ...any) { f.Log(events.Warn, format, args...) }

// keep hands a state change to every observer and returns their errors
// joined (nil when all succeeded). A failed save is never dropped: it is
// noted once, as a warning every observer sees, before the engine gets
// the error to decide what it means. Changes are handed over one at a
// time; notices and events may be sent meanwhile, so that the store can
// log while it saves.
func (f *Fan) keep(change func(Observer) error) error {
	f.mu.Lock()
	obs := f.obs
	f.mu.Unlock()
	f.kmu.Lock()
	var errs []error
	for _, o := range obs {
		if err := change(o); err != nil {
			errs = append(errs, err)
		}
	}
	f.kmu.Unlock()
	var err error
	switch len(errs) {
	case 0:
		return nil
	case 1:
		err = errs[0]
	default:
		err = errors.Join(errs...)
	}
	f.Note(events.Warning{Err: err})
	return err
}

var _ Keeper = (*Fan)(nil)

// The Keeper methods hand the change to every observer (keep).

func (f *Fan) WindowChanged(w ratelimit.Window) error {
	return f.keep(func(o Observer) error { return o.WindowChanged(w) })
}

func (f *Fan) BreakerChecked(s breaker.State, tr *breaker.Transition, created bool) error {
	return f.keep(func(o Observer) error { return o.BreakerChecked(s, tr, created) })
}

func (f *Fan) BreakerRecorded(s breaker.State, tr *breaker.Transition) error {
	return f.keep(func(o Observer) error { return o.BreakerRecorded(s, tr) })
}

func (f *Fan) AnalysisRecorded(a analysis.ResponseAnalysis) error {
	return f.keep(func(o Observer) error { return o.AnalysisRecorded(a) })
}

func (f *Fan) AnalysisCleared() error { return f.keep(Observer.AnalysisCleared) }

func (f *Fan) ExitSignalsChanged(s analysis.ExitSignals) error {
	return f.keep(func(o Observer) error { return o.ExitSignalsChanged(s) })
}

func (f *Fan) ErrorHistoryChanged(h analysis.ErrorHistory) error {
	return f.keep(func(o Observer) error { return o.ErrorHistoryChanged(h) })
}

func (f *Fan) OutputLengthChanged(n int) error {
	return f.keep(func(o Observer) error { return o.OutputLengthChanged(n) })
}

func (f *Fan) GatesRecorded(r *gates.Results) error {
	return f.keep(func(o Observer) error { return o.GatesRecorded(r) })
}

func (f *Fan) FindingsRecorded(fs review.Findings) error {
	return f.keep(func(o Observer) error { return o.FindingsRecorded(fs) })
}

func (f *Fan) FindingsCleared() error { return f.keep(Observer.FindingsCleared) }

func (f *Fan) ReviewSHARecorded(sha string) error {
	return f.keep(func(o Observer) error { return o.ReviewSHARecorded(sha) })
}

func (f *Fan) LoopStarted(sha string) error {
	return f.keep(func(o Observer) error { return o.LoopStarted(sha) })
}

func (f *Fan) DiffSummaryRecorded(text string) error {
	return f.keep(func(o Observer) error { return o.DiffSummaryRecorded(text) })
}

func (f *Fan) DiffSummaryTaken() error { return f.keep(Observer.DiffSummaryTaken) }

func (f *Fan) WriteTimeoutMarked(at time.Time) error {
	return f.keep(func(o Observer) error { return o.WriteTimeoutMarked(at) })
}

func (f *Fan) WriteTimeoutCleared() error { return f.keep(Observer.WriteTimeoutCleared) }

func (f *Fan) PlanCollapsed(plan []byte) error {
	return f.keep(func(o Observer) error { return o.PlanCollapsed(plan) })
}

func (f *Fan) SessionStarted(at time.Time) error {
	return f.keep(func(o Observer) error { return o.SessionStarted(at) })
}

func (f *Fan) SessionTouched(at time.Time) error {
	return f.keep(func(o Observer) error { return o.SessionTouched(at) })
}

func (f *Fan) SessionIDSaved(id string, at time.Time) error {
	return f.keep(func(o Observer) error { return o.SessionIDSaved(id, at) })
}

func (f *Fan) FallbackSessionIDSaved(driver, id string, at time.Time) error {
	return f.keep(func(o Observer) error { return o.FallbackSessionIDSaved(driver, id, at) })
}

func (f *Fan) SessionReset(reason string, loop int, at time.Time) error {
	return f.keep(func(o Observer) error { return o.SessionReset(reason, loop, at) })
}
