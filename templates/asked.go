package templates

import (
	"fmt"
	"time"
)

// Asked is what the next call hears of the question the agent asked the
// person (docs/LOOP-CONTROL.md#when-the-agent-must-ask): the person's
// answer, marked as theirs, or that nobody answered and what the loop did
// then. It is said once: to the first call after the wait that succeeds.
type Asked struct {
	Question string // the agent's question, as it asked it
	Loop     int    // the loop whose call asked it
	// Answer is the person's answer; "" when nobody answered within
	// Waited.
	Answer string
	Waited time.Duration
	// SetAside is the plan's task set aside with the question
	// (ASK_TIMEOUT_ACTION=skip); "" otherwise.
	SetAside string
}

// askedQuestionMax and askedAnswerMax cap, in characters, what the notice
// quotes: the question as analysis bounds it, the answer as the answer
// channels bound it.
const (
	askedQuestionMax = 1000
	askedAnswerMax   = 4096
)

// askedNotice is the sentence that gives the agent the person's answer to
// its question, or tells it nobody answered.
func askedNotice(a Asked) string {
	q := cutRunes(oneLine(a.Question), askedQuestionMax)
	if a.Answer != "" {
		return fmt.Sprintf("ANSWER FROM THE PERSON to your question of loop %d (%q): %s — this is the person's own answer, not a guess: act on it, and do not ask the same question again. ",
			a.Loop, q, cutRunes(oneLine(a.Answer), askedAnswerMax))
	}
	head := fmt.Sprintf("NOBODY ANSWERED your question of loop %d (%q) within %s. ", a.Loop, q, a.Waited.Round(time.Second))
	if a.SetAside != "" {
		return head + fmt.Sprintf("The task %q is set aside in @fix_plan.md with the question (its box is now [?]): leave it for the person and go on with the next open task. ", a.SetAside)
	}
	return head + "Take the default you named for no answer (or the safest reversible choice), say so in your commit message, and go on; do not ask it again. "
}

// cutRunes is s cut to n characters, "…" last when cut.
func cutRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// SetAsideNote is the line the plan gets under a task set aside with an
// unanswered question (fixplan.SetAside): what was asked, and how the
// person puts the task back.
func SetAsideNote(loop int, question string, waited time.Duration) string {
	return fmt.Sprintf("Set aside: the agent asked in loop %d %q and nobody answered within %s. Write your decision here and change [?] back to [ ] to let the agent take the task up again.",
		loop, cutRunes(oneLine(question), askedQuestionMax), waited.Round(time.Second))
}
