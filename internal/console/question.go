package console

import (
	"fmt"
	"strings"
	"time"

	"github.com/ralphloop/ralph_loop/internal/clip"
	"github.com/ralphloop/ralph_loop/internal/events"
	"github.com/ralphloop/ralph_loop/internal/safetext"
)

// The words of the agent's questions (docs/LOOP-CONTROL.md#when-the-agent-must-ask):
// the console's and ralph.log's lines, the notifications' headline and the
// stop line. The question is the agent's text: it is quoted on one line,
// its controls made visible (safetext), wherever it is shown.

// Quoted is a question (or an answer) on one line for a person: its
// control characters made visible, clipped to n characters, in quotes.
func Quoted(s string, n int) string {
	return `"` + safetext.Line(clip.Ellipsis(strings.TrimSpace(s), n)) + `"`
}

// questionAsked: the agent asks; the loop waits (or, with ASK_TIMEOUT=0,
// does not).
func questionAsked(w events.Wait) []part {
	q := w.Question
	if q == nil {
		return nil
	}
	p := []part{line(events.Warn, "❓ The agent asks (loop %d): %s", q.Loop, Quoted(q.Text, 1000))}
	if w.Delay <= 0 {
		return append(p, line(events.Info, "ASK_TIMEOUT=0: not waiting for an answer (ASK_TIMEOUT_ACTION=%s)", q.Then))
	}
	how := "ralph_loop --answer \"YOUR ANSWER\" in this project, or the dashboard's answer form"
	if q.AnswerFile != "" {
		how += ", or write the answer to " + safetext.Line(q.AnswerFile)
	}
	return append(p, line(events.Info, "No agent call until you answer: %s. Waiting up to %s, then %s (ASK_TIMEOUT, ASK_TIMEOUT_ACTION).",
		how, w.Delay.Round(time.Second), thenWords(q.Then, "")))
}

// thenWords is what the loop does without an answer.
func thenWords(then, task string) string {
	switch then {
	case "skip":
		if task != "" {
			return "set the task " + Quoted(task, 120) + " aside in @fix_plan.md with the question"
		}
		return "set the task aside in @fix_plan.md with the question"
	case "stop":
		return "stop the run (exit 13); the question stays open"
	}
	return "the next call is told nobody answered and takes its own default"
}

// questionEnded: the answer came, or the wait ended without one.
func questionEnded(w events.Wait) []part {
	q := w.Question
	if q == nil {
		return nil
	}
	if q.Answer != "" {
		return []part{line(success, "✅ Answer (via %s): %s; the next call gets it", q.Via, Quoted(q.Answer, 1000))}
	}
	switch w.Reason {
	case "stopped":
		return []part{text(events.Info, "The question stays open: answer it with ralph_loop --answer, and the next run's first call gets the answer")}
	case "skipped":
		return []part{line(events.Warn, "Wait for the answer skipped; %s (ASK_TIMEOUT_ACTION=%s)", thenWords(q.Then, q.Task), q.Then)}
	}
	return []part{line(events.Warn, "No answer within %s; %s (ASK_TIMEOUT_ACTION=%s)", w.Delay.Round(time.Second), thenWords(q.Then, q.Task), q.Then)}
}

// questionHeadline is a question event in one line (notifications, the
// dashboard's timeline).
func questionHeadline(e events.Event) string {
	q := e.Question
	if q == nil {
		return ""
	}
	switch e.Type {
	case events.QuestionAsked:
		return fmt.Sprintf("The agent asks (loop %d): %s; answer with ralph_loop --answer, the dashboard or the answer file%s", q.Loop, Quoted(q.Text, 1000), until(e))
	case events.QuestionAnswered:
		return fmt.Sprintf("Answered (via %s): %s", q.Via, Quoted(q.Answer, 300))
	}
	return fmt.Sprintf("No answer to %s (%s); %s", Quoted(q.Text, 200), e.Reason, thenWords(q.Then, q.Task))
}

// unansweredStop is StopLine's sentence of a run stopped by an
// unanswered question.
func unansweredStop(s events.Stop) string {
	return fmt.Sprintf("nobody answered the agent's question within ASK_TIMEOUT=%s (ASK_TIMEOUT_ACTION=stop): %s; answer it with ralph_loop --answer \"YOUR ANSWER\" and run ralph_loop again: its first call gets the answer",
		s.AskTimeout, Quoted(s.Question, 300))
}

// questionCarried: a question an earlier run left open.
func questionCarried(n events.QuestionCarried) []part {
	if n.Answered {
		return []part{line(events.Info, "The question an earlier run asked (loop %d) was answered: its answer goes into the first call: %s", n.Loop, Quoted(n.Question, 300))}
	}
	return []part{line(events.Warn, "A question an earlier run asked (loop %d) is still open: %s; no call until it is answered", n.Loop, Quoted(n.Question, 300))}
}
