package observe

import (
	"time"

	"github.com/ralphloop/ralph_loop/internal/events"
)

// Lines is an Observer that turns each lifecycle report into its line of
// logs/events.jsonl (docs/EVENTS.md) and hands it to f: the one place the
// typed reports become that line (the event log, the notifiers' payload,
// the in-process dashboard's copy of the log). It implements every
// method, so a new happening does not build until it says what its line
// is.
func Lines(f func(events.Event)) Observer { return lines{f: f} }

type lines struct {
	f func(events.Event)
}

// line is the line's common part.
func line(m events.Moment, typ events.Type) events.Event {
	return events.Event{V: events.SchemaVersion, TS: m.TS, Type: typ, RunID: m.RunID, Snapshot: m.Snapshot, Action: m.Action, Status: m.Status}
}

// waitLine is the line of a wait of kind typ.
func waitLine(m events.Moment, typ events.Type, w events.Wait) events.Event {
	e := line(m, typ)
	e.Wait, e.DelaySecs, e.Skipped, e.Reason = w.Kind, w.Delay.Seconds(), w.Skipped, w.Reason
	if !w.Until.IsZero() {
		e.Until = &w.Until
	}
	return e
}

func (l lines) RunStarted(m events.Moment, s events.Start) {
	e := line(m, events.RunStarted)
	e.Driver = s.Driver
	e.Version = s.Version
	l.f(e)
}

func (l lines) CallStarted(m events.Moment) { l.f(line(m, events.IterationStarted)) }

// CallProgress is no line: the log keeps what happened, not how a call
// went along.
func (l lines) CallProgress(events.Moment, events.AgentWorking) {}

func (l lines) CallEnded(m events.Moment, c events.Call) {
	e := line(m, c.Outcome)
	e.Iteration = c.Iteration
	e.Reason = c.FailureWords()
	e.DriverExitCode = c.DriverExitCode
	e.StderrTail, e.StderrLog = c.StderrTail, c.StderrLog
	l.f(e)
}

func (l lines) WaitStarted(m events.Moment, w events.Wait) {
	switch w.Kind {
	case events.WaitPause:
		l.f(line(m, events.Paused))
	case events.WaitQuestion:
		l.f(questionLine(m, events.QuestionAsked, w))
	default:
		l.f(waitLine(m, events.DelayStarted, w))
	}
}

func (l lines) WaitEnded(m events.Moment, w events.Wait) {
	switch {
	case w.Kind == events.WaitPause:
		l.f(line(m, events.Resumed))
	case w.Kind == events.WaitQuestion && w.Question != nil && w.Question.Answer != "":
		l.f(questionLine(m, events.QuestionAnswered, w))
	case w.Kind == events.WaitQuestion:
		l.f(questionLine(m, events.QuestionUnanswered, w))
	default:
		l.f(waitLine(m, events.DelayEnded, w))
	}
}

// questionLine is the line of a question's wait: question_asked as it
// starts, question_answered or question_unanswered as it ends.
func questionLine(m events.Moment, typ events.Type, w events.Wait) events.Event {
	e := waitLine(m, typ, w)
	e.Question = w.Question
	return e
}

func (l lines) LimitHit(m events.Moment, w events.Wait) {
	typ := events.UsageLimited
	if w.Kind == "rate_limit" {
		typ = events.RateLimited
	}
	l.f(waitLine(m, typ, w))
}

func (l lines) BreakerMoved(m events.Moment, c events.BreakerChange) {
	e := line(m, events.BreakerChanged)
	e.From, e.To, e.Reason = c.From, c.To, c.Reason
	l.f(e)
}

func (l lines) UsageChanged(m events.Moment) { l.f(line(m, events.UsageUpdated)) }

func (l lines) UsageProjected(m events.Moment, p events.Projection) {
	e := line(m, events.UsageProjected)
	e.Projection = &p
	l.f(e)
}

func (l lines) DriverSwitched(m events.Moment, s events.DriverSwitch) {
	e := line(m, events.DriverSwitched)
	e.From, e.To, e.Why = s.FromDriver, s.ToDriver, s.Why
	if !s.Until.IsZero() {
		e.Until = &s.Until
	}
	l.f(e)
}

func (l lines) Tracked(m events.Moment, t events.Task) {
	e := line(m, t.Kind)
	e.Tracker, e.Tasks, e.Title = t.Tracker, t.Keys, t.Title
	e.Message, e.Reason = t.Note, t.Op
	if t.Kind == events.TrackerError {
		e.Message = t.Err
	}
	l.f(e)
}

func (l lines) Reviewed(m events.Moment, r events.Review) {
	e := line(m, events.ReviewCompleted)
	e.Message = r.Text
	l.f(e)
}

func (l lines) Stopped(m events.Moment, end events.End) {
	e := line(m, events.RunFinished)
	e.Reason = end.Reason
	e.ExitCode = new(end.ExitCode)
	e.DriverExitCode = end.DriverExitCode
	if end.Stop != nil {
		e.Message = end.Stop.Sentence()
		e.Stop = end.Stop
	}
	l.f(e)
}

// Output, Warned and Said are what a person is told, not what happened:
// no line.
func (l lines) Output(time.Time, []byte)              {}
func (l lines) Warned(time.Time, events.Level, error) {}
func (l lines) Said(time.Time, events.Notice)         {}

var _ Observer = lines{}
