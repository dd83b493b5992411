package events

import (
	"fmt"
	"strings"
	"time"

	"github.com/ralphloop/ralph_loop/internal/clip"
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
func (w Wait) questionAsked() []Line {
	q := w.Question
	if q == nil {
		return nil
	}
	l := []Line{logf(Warn, "❓ The agent asks (loop %d): %s", q.Loop, Quoted(q.Text, 1000))}
	if w.Delay <= 0 {
		return append(l, logf(Info, "ASK_TIMEOUT=0: not waiting for an answer (ASK_TIMEOUT_ACTION=%s)", q.Then))
	}
	how := "ralph_loop --answer \"YOUR ANSWER\" in this project, or the dashboard's answer form"
	if q.AnswerFile != "" {
		how += ", or write the answer to " + safetext.Line(q.AnswerFile)
	}
	return append(l, logf(Info, "No agent call until you answer: %s. Waiting up to %s, then %s (ASK_TIMEOUT, ASK_TIMEOUT_ACTION).",
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
func (w Wait) questionEnded() []Line {
	q := w.Question
	if q == nil {
		return nil
	}
	if q.Answer != "" {
		return []Line{logf(Success, "✅ Answer (via %s): %s; the next call gets it", q.Via, Quoted(q.Answer, 1000))}
	}
	switch w.Reason {
	case "stopped":
		return []Line{logText(Info, "The question stays open: answer it with ralph_loop --answer, and the next run's first call gets the answer")}
	case "skipped":
		return []Line{logf(Warn, "Wait for the answer skipped; %s (ASK_TIMEOUT_ACTION=%s)", thenWords(q.Then, q.Task), q.Then)}
	}
	return []Line{logf(Warn, "No answer within %s; %s (ASK_TIMEOUT_ACTION=%s)", w.Delay.Round(time.Second), thenWords(q.Then, q.Task), q.Then)}
}

// questionHeadline is a question event in one line (notifications, the
// dashboard's timeline).
func questionHeadline(e Event) string {
	q := e.Question
	if q == nil {
		return ""
	}
	switch e.Type {
	case QuestionAsked:
		return fmt.Sprintf("The agent asks (loop %d): %s; answer with ralph_loop --answer, the dashboard or the answer file%s", q.Loop, Quoted(q.Text, 1000), until(e))
	case QuestionAnswered:
		return fmt.Sprintf("Answered (via %s): %s", q.Via, Quoted(q.Answer, 300))
	}
	return fmt.Sprintf("No answer to %s (%s); %s", Quoted(q.Text, 200), e.Reason, thenWords(q.Then, q.Task))
}

// unansweredStop is Stop.Sentence of a run stopped by an unanswered
// question.
func unansweredStop(s Stop) string {
	return fmt.Sprintf("nobody answered the agent's question within ASK_TIMEOUT=%s (ASK_TIMEOUT_ACTION=stop): %s; answer it with ralph_loop --answer \"YOUR ANSWER\" and run ralph_loop again: its first call gets the answer",
		s.AskTimeout, Quoted(s.Question, 300))
}

// Lines: a question an earlier run left open, answered or not.
func (n QuestionCarried) Lines() []Line {
	if n.Answered {
		return []Line{logf(Info, "The question an earlier run asked (loop %d) was answered: its answer goes into the first call: %s", n.Loop, Quoted(n.Question, 300))}
	}
	return []Line{logf(Warn, "A question an earlier run asked (loop %d) is still open: %s; no call until it is answered", n.Loop, Quoted(n.Question, 300))}
}
