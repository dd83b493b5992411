package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ralphloop/ralph_loop/analysis"
	"github.com/ralphloop/ralph_loop/breaker"
	"github.com/ralphloop/ralph_loop/internal/ask"
	"github.com/ralphloop/ralph_loop/internal/countdown"
	"github.com/ralphloop/ralph_loop/internal/events"
	"github.com/ralphloop/ralph_loop/internal/fixplan"
	"github.com/ralphloop/ralph_loop/internal/store"
	"github.com/ralphloop/ralph_loop/templates"
)

// When the agent must ask (docs/LOOP-CONTROL.md#when-the-agent-must-ask):
// a reply with a question (analysis.Result.Question) is not done, and its
// call is neither progress nor no progress for the breaker until the
// question ends. The loop posts the question in the person's box (Asker:
// a folder of theirs outside the project, package ask) and waits, making
// no call, until the person answers (ralph_loop --answer, the dashboard,
// the answer file) or ASK_TIMEOUT passes; then the next call's context
// carries the answer, marked as the person's, or that nobody answered,
// and what ASK_TIMEOUT_ACTION did: continue, skip (the task is set aside
// in the plan) or stop (exit 13, the question stays open for the next
// run). One question at a time: a question still open when a run starts
// (it stopped, or was stopped, while waiting) is waited on before the
// first call, and an answer already given goes into that call.

// Asker is the person's side of the questions: package ask's Box in
// production.
type Asker interface {
	// Pending is the question waiting in the box (nil: none).
	Pending() (*ask.Question, error)
	// Post puts a new question in the box (in place of any other).
	Post(text string, loop int, now time.Time) (ask.Question, error)
	// Look reports q's answer once it is given.
	Look(q ask.Question) (ask.Answer, bool, error)
	// Close removes q and its answer: it reached the agent, or the loop
	// went on without one.
	Close(q ask.Question) error
	// AnswerFile is where a bot or a hook writes q's answer.
	AnswerFile(q ask.Question) string
}

// asking is the loop's one question at a time.
type asking struct {
	asked *asked        // the last call asked this: askGate posts it
	open  *ask.Question // the question the loop waits on (in the box)
	// reply is what the next call hears of the last question, until a
	// call that heard it succeeds; deliver is the answered question,
	// kept in the box until then (a run that stops meanwhile hands the
	// answer to the next one).
	reply   *templates.Asked
	deliver *ask.Question
	sent    bool // the call under way heard reply
	// deferred is the asking call's result for the breaker: recorded
	// only when nobody answers.
	deferred *breaker.LoopResult
	shown    *events.Question // status.json's question while the loop waits
}

// asked is a question a call asked.
type asked struct {
	text string
	loop int
}

// answerPoll is how often the loop looks for the answer while it waits.
var answerPoll = time.Second

// errAnswered ends the wait for the answer when it came.
var errAnswered = errors.New("answered")

// noteQuestion reads a successful call's reply for the question side:
// the call heard the last question's reply (it is delivered), and a reply
// that asks is not done (its completion signals are withdrawn) and is
// waited on after the call.
func (l *loop) noteQuestion(res *analysis.Result) {
	l.delivered()
	if res.Question == "" {
		return
	}
	l.ask.asked = &asked{text: res.Question, loop: l.n}
	res.SuppressCompletion()
}

// delivered: the call that heard the reply succeeded; an answered
// question leaves the box.
func (l *loop) delivered() {
	if !l.ask.sent {
		return
	}
	l.ask.sent, l.ask.reply = false, nil
	if q := l.ask.deliver; q != nil && l.deps.Ask != nil {
		if err := l.deps.Ask.Close(*q); err != nil {
			l.warn(fmt.Errorf("the answered question stays in %s: %w", l.deps.Ask.AnswerFile(*q), err))
		}
	}
	l.ask.deliver = nil
}

// askedContext is the next call's part of the loop context: the reply to
// the last question, until a call that hears it succeeds.
func (l *loop) askedContext() *templates.Asked {
	l.ask.sent = l.ask.reply != nil
	return l.ask.reply
}

// askingNow reports whether a call asked a question that is not yet
// waited on, or an answer is still to reach a call: the exit conditions
// wait for it (a plan ticked to its end with a question asked is not a
// finished project until the answer was heard).
func (l *loop) askingNow() bool { return l.ask.asked != nil || l.ask.open != nil || l.ask.reply != nil }

// deferBreaker keeps an asking call's result for the breaker until its
// question ends (it is recorded only when nobody answers); false for a
// call that asked nothing.
func (l *loop) deferBreaker(lr breaker.LoopResult) bool {
	if l.ask.asked == nil {
		return false
	}
	l.ask.deferred = &lr
	return true
}

// resumeQuestion takes up a question an earlier run left open: answered,
// the first call gets the answer; otherwise the loop waits for it before
// the first call.
func (l *loop) resumeQuestion() {
	if l.deps.Ask == nil {
		return
	}
	q, err := l.deps.Ask.Pending()
	if err != nil {
		l.warn(err)
		return
	}
	if q == nil {
		return
	}
	a, ok, err := l.deps.Ask.Look(*q)
	if err != nil {
		l.warn(err)
	}
	l.bus.Note(events.QuestionCarried{Question: q.Text, Loop: q.Loop, Answered: ok})
	if ok {
		l.ask.reply = &templates.Asked{Question: q.Text, Loop: q.Loop, Answer: a.Text}
		l.ask.deliver = q
		return
	}
	l.ask.open = q
}

// askGate posts the question the last call asked and waits for its
// answer, making no call meanwhile; stop when the run ends (a signal, an
// unanswered question with ASK_TIMEOUT_ACTION=stop, the breaker opened by
// the unanswered asking calls).
func (l *loop) askGate() (Result, bool) {
	if a := l.ask.asked; a != nil {
		l.ask.asked = nil
		l.ask.open = l.post(a)
	}
	if l.ask.open == nil {
		return Result{}, false
	}
	return l.awaitAnswer(*l.ask.open)
}

// post puts the question in the person's box. Without a box (none could
// be made) nobody can answer: the question is still reported, and the
// wait ends at once.
func (l *loop) post(a *asked) *ask.Question {
	if l.deps.Ask != nil {
		q, err := l.deps.Ask.Post(a.text, a.loop, l.now())
		if err == nil {
			return &q
		}
		l.warn(fmt.Errorf("the agent's question cannot be answered: %w", err))
	}
	return &ask.Question{Text: a.text, Loop: a.loop, AskedAt: l.now()}
}

// awaitAnswer waits for q's answer: no call is made until it comes or
// ASK_TIMEOUT passes (at once without a box to answer in).
func (l *loop) awaitAnswer(q ask.Question) (Result, bool) {
	timeout := l.s.AskTimeout
	if q.ID == "" {
		timeout = 0
	}
	start := l.now()
	until := start.Add(timeout)
	ev := events.Question{Text: q.Text, Loop: q.Loop, AskedAt: q.AskedAt, Then: l.s.AskTimeoutAction}
	if timeout > 0 {
		ev.Until = &until
	}
	shown := ev
	l.ask.shown = &shown
	if q.ID != "" {
		ev.AnswerFile = l.deps.Ask.AnswerFile(q)
	}
	w := events.Wait{Kind: events.WaitQuestion, Delay: timeout, Until: until, Question: &ev}
	l.bus.WaitStarted(l.at("waiting_for_answer", "paused"), w)
	a, end := l.waitForAnswer(q, until)
	l.ask.shown = nil
	ended := ev
	ended.AnswerFile, ended.Until = "", nil
	w.Question = &ended
	switch end {
	case "answered":
		ended.Answer, ended.Via, ended.Then = a.Text, a.Via, ""
		l.ask.open, l.ask.deferred = nil, nil
		l.ask.reply = &templates.Asked{Question: q.Text, Loop: q.Loop, Answer: a.Text}
		l.ask.deliver = &q
		l.bus.WaitEnded(l.at("answered", "running"), w)
		return Result{}, false
	case "stopped":
		// The question stays open in the box: the next run waits for it
		// (or hands its answer to its first call).
		w.Reason = "stopped"
		l.bus.WaitEnded(l.at("", ""), w)
		return l.signalExit(), true
	}
	w.Reason = end
	return l.unanswered(q, w, l.now().Sub(start))
}

// waitForAnswer waits until q is answered ("answered", with the answer),
// until passes ("timeout"), the wait is skipped (Ctrl+C on a terminal,
// the dashboard's skip: "skipped") or the loop is stopped ("stopped").
// It looks for the answer every answerPoll, and says the time left every
// second (the console's countdown).
func (l *loop) waitForAnswer(q ask.Question, until time.Time) (ask.Answer, string) {
	l.plan.stale() // the person may edit the plan while the loop waits
	var (
		got    ask.Answer
		warned bool
	)
	ctx, cancel := context.WithCancelCause(l.ctx)
	defer cancel(nil)
	look := func() {
		if q.ID == "" {
			return
		}
		a, ok, err := l.deps.Ask.Look(q)
		if err != nil && !warned {
			warned = true
			l.warn(err)
		}
		if ok {
			got = a
			cancel(errAnswered)
		}
	}
	look()
	if got.Text != "" {
		return got, "answered"
	}
	if l.deps.Stopper != nil {
		if l.deps.Stopper.skipping(l.calls) {
			return got, "skipped"
		}
		skip := l.deps.Stopper.beginWait()
		defer l.deps.Stopper.endWait()
		go func() {
			select {
			case <-skip:
				cancel(errSkipped)
			case <-ctx.Done():
			}
		}()
	}
	polled := l.now()
	err := countdown.Wait(ctx, until, func(left time.Duration) {
		l.bus.Note(events.WaitTick{Kind: events.WaitQuestion, Left: left})
		if now := l.now(); now.Sub(polled) >= answerPoll {
			polled = now
			look()
		}
	})
	l.bus.Note(events.WaitOver{})
	switch {
	case errors.Is(err, errAnswered):
		return got, "answered"
	case err == nil:
		if look(); got.Text != "" {
			return got, "answered" // given at the last moment
		}
		return got, "timeout"
	case errors.Is(err, errSkipped):
		l.deps.Stopper.noteSkip(l.calls)
		return got, "skipped"
	}
	return got, "stopped"
}

// unanswered ends a wait that brought no answer as ASK_TIMEOUT_ACTION
// says: the next call is told to take its own default (continue), the
// plan's task is set aside with the question (skip), or the run stops
// with the question still open (stop). The asking call then counts for
// the breaker as the loop it was.
func (l *loop) unanswered(q ask.Question, w events.Wait, waited time.Duration) (Result, bool) {
	l.ask.open = nil
	action := l.s.AskTimeoutAction
	w.Question.Then = action
	if action == "stop" {
		l.bus.WaitEnded(l.at("", ""), w)
		return l.stopping(Result{Code: ExitUnanswered, Action: "question_unanswered", Status: "stopped", Reason: "question_unanswered",
			Stop: events.Stop{Kind: events.StopUnanswered, Question: q.Text, AskTimeout: l.s.AskTimeout}}), true
	}
	reply := &templates.Asked{Question: q.Text, Loop: q.Loop, Waited: waited}
	if action == "skip" {
		reply.SetAside = l.setAside(q, waited)
		w.Question.Task = reply.SetAside
	}
	l.ask.reply = reply
	if q.ID != "" {
		if err := l.deps.Ask.Close(q); err != nil {
			l.warn(err)
		}
	}
	l.bus.WaitEnded(l.at("question_unanswered", "running"), w)
	if d := l.ask.deferred; d != nil {
		l.ask.deferred = nil
		if r, stop := l.recordBreaker(*d, "circuit_breaker_trip"); stop {
			return r, true
		}
	}
	return Result{}, false
}

// setAside marks the plan's first open task [?] with the question under
// it, and returns the task ("" when the plan has none open).
func (l *loop) setAside(q ask.Question, waited time.Duration) string {
	l.readPlan()
	if !l.plan.found {
		return ""
	}
	out, task, changed := fixplan.SetAside(l.plan.data, templates.SetAsideNote(q.Loop, q.Text, waited))
	if !changed {
		return ""
	}
	if err := l.writePlan(out, store.PlanSetAside); err != nil {
		return ""
	}
	l.plan.data = out
	l.plan.count()
	return task
}
