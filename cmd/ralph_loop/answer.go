package main

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/ralphloop/ralph_loop/internal/ask"
	"github.com/ralphloop/ralph_loop/internal/config"
	"github.com/ralphloop/ralph_loop/internal/engine"
	"github.com/ralphloop/ralph_loop/internal/events"
	"github.com/ralphloop/ralph_loop/internal/ralphdir"
	"github.com/ralphloop/ralph_loop/internal/readmodel"
)

// The person's answers to the agent's questions
// (docs/LOOP-CONTROL.md#when-the-agent-must-ask): --answer, the
// dashboard's form, the loop's box (package ask), and what --status adds
// of an open question.

// answerCommand is --answer TEXT.
var answerCommand = &command{
	flag: &flagSpec{Flag: config.Flag{Long: "answer", Doc: "LOOP-CONTROL.md", Arg: "TEXT", Group: config.GroupCommands,
		Help: "answer the question the agent asked (the loop makes no call until it is answered), and exit", Accepts: "the answer's text"},
		kind:  commandFlag,
		check: answerCheck},
	refuse: refusesLive("--answer"),
	where:  atProjectRoot,
	run: func(e *runEnv, l *line) error {
		return giveAnswer(answerOptionsOf(l, e.lookupEnv), e.dir, e.safeOut)
	},
}

// answerCheck refuses an empty answer.
func answerCheck(v string) error {
	if strings.TrimSpace(v) == "" {
		return flagError("--answer", "--answer requires your answer to the agent's question, in quotes: ralph_loop --answer \"SQLite, one file\"")
	}
	return nil
}

// answerOptions are --answer's: the answer, and whether the command runs
// inside an agent call (the loop gives every call RALPH_LOOP_CALL).
type answerOptions struct {
	text   string
	inCall bool
}

func answerOptionsOf(l *line, lookupEnv func(string) (string, bool)) answerOptions {
	token, _ := lookupEnv("RALPH_LOOP_CALL")
	return answerOptions{text: l.value("answer"), inCall: token != ""}
}

// giveAnswer is --answer TEXT: the answer goes to the question waiting in
// the project's box, for the loop (running, or its next run) to hand to
// the agent's next call.
func giveAnswer(o answerOptions, d *ralphdir.Dir, stdout io.Writer) error {
	if o.inCall {
		return errors.New("--answer is refused inside an agent call (RALPH_LOOP_CALL is set): only the person answers the agent's question")
	}
	box, err := ask.For(d.Root())
	if err != nil {
		return err
	}
	q, err := box.Give(o.text, ask.ViaCommand, time.Now())
	if err != nil {
		return answerError(err, q, d)
	}
	fmt.Fprintf(stdout, "Answered the agent's question of loop %d: %s\n", q.Loop, events.Quoted(q.Text, 300))
	fmt.Fprintln(stdout, "The loop's next call gets your answer (a waiting loop goes on within a second; a stopped one, at its next run).")
	return nil
}

// answerError says why an answer was not taken.
func answerError(err error, q ask.Question, d *ralphdir.Dir) error {
	switch {
	case errors.Is(err, ask.ErrNoQuestion):
		return fmt.Errorf("no question of the agent waits for an answer in %s (ralph_loop --status shows what the loop does)", d.Root())
	case errors.Is(err, ask.ErrAnswered):
		return fmt.Errorf("the agent's question of loop %d is answered already; the first answer counts, and the loop's next call gets it", q.Loop)
	case errors.Is(err, ask.ErrClosed):
		return fmt.Errorf("the agent's question of loop %d closed as the answer was written (it timed out): the loop went on without it", q.Loop)
	}
	return err
}

// dashboardAnswer is the dashboard's answer form for the project at d
// (dashboard.Project.Answer).
func dashboardAnswer(d *ralphdir.Dir) func(text string) (string, error) {
	return func(text string) (string, error) {
		box, err := ask.For(d.Root())
		if err != nil {
			return "", err
		}
		q, err := box.Give(text, ask.ViaDashboard, time.Now())
		if err != nil {
			return "", answerError(err, q, d)
		}
		return q.Text, nil
	}
}

// loopAsker is the box the loop posts its questions in; nil (with a
// warning) when none can be made: a question is then reported and
// ASK_TIMEOUT_ACTION applies at once.
func loopAsker(d *ralphdir.Dir, warn func(error)) engine.Asker {
	box, err := ask.For(d.Root())
	if err != nil {
		warn(fmt.Errorf("the agent's questions cannot be answered: %w", err))
		return nil
	}
	return box
}

// openQuestion adds to v the question the project's box holds when the
// loop does not wait on it (it stopped, or was stopped, while waiting),
// and the answer file of the question either way. It creates nothing:
// a project that never asked has no box.
func openQuestion(d *ralphdir.Dir, v *readmodel.View) {
	base, err := ask.Base()
	if err != nil || !exists(base) {
		return
	}
	box, err := ask.Open(base, d.Root())
	if err != nil {
		return
	}
	q, err := box.Pending()
	if err != nil || q == nil {
		return
	}
	if _, answered, _ := box.Look(*q); answered {
		return
	}
	if v.State.Question == nil {
		v.State.Question = &events.Question{Text: q.Text, Loop: q.Loop, AskedAt: q.AskedAt}
	}
	if v.State.Question.Loop == q.Loop && v.State.Question.Text == q.Text {
		v.State.Question.AnswerFile = box.AnswerFile(*q)
	}
}
