package events

import (
	"strings"
	"testing"
	"time"
)

// waitEnded is a wait's end, as the engine reports it.
type waitEnded Wait

// TestRenderQuestion: the golden lines of the agent's question, its
// answer and each way its wait ends; the question's escapes shown as
// \u001b, on one line.
func TestQuestionLines(t *testing.T) {
	q := func(mod func(*Question)) *Question {
		v := &Question{Text: "Keep \x1b]0;x\x07 the table?\n(a) yes (b) no", Loop: 2, Then: "continue", AnswerFile: "/home/me/.cache/ralph_loop/questions/k/id.answer"}
		if mod != nil {
			mod(v)
		}
		return v
	}
	quoted := `"Keep \u001b]0;x\u0007 the table?\u000a(a) yes (b) no"`
	for _, tc := range []struct {
		name string
		v    any
		want []string
	}{
		{"asked", Wait{Kind: WaitQuestion, Delay: 30 * time.Minute, Question: q(nil)}, []string{
			"WARN ❓ The agent asks (loop 2): " + quoted,
			`INFO No agent call until you answer: ralph_loop --answer "YOUR ANSWER" in this project, or the dashboard's answer form, or write the answer to /home/me/.cache/ralph_loop/questions/k/id.answer. Waiting up to 30m0s, then the next call is told nobody answered and takes its own default (ASK_TIMEOUT, ASK_TIMEOUT_ACTION).`}},
		{"asked, no wait", Wait{Kind: WaitQuestion, Question: q(func(v *Question) { v.Then = "stop" })}, []string{
			"WARN ❓ The agent asks (loop 2): " + quoted,
			"INFO ASK_TIMEOUT=0: not waiting for an answer (ASK_TIMEOUT_ACTION=stop)"}},
		{"answered", waitEnded{Kind: WaitQuestion, Question: q(func(v *Question) { v.Answer, v.Via = "No.", "dashboard" })}, []string{
			`SUCCESS ✅ Answer (via dashboard): "No."; the next call gets it`}},
		{"timeout, skip", waitEnded{Kind: WaitQuestion, Delay: time.Hour, Reason: "timeout", Question: q(func(v *Question) { v.Then, v.Task = "skip", "Task B" })}, []string{
			`WARN No answer within 1h0m0s; set the task "Task B" aside in @fix_plan.md with the question (ASK_TIMEOUT_ACTION=skip)`}},
		{"skipped, stop", waitEnded{Kind: WaitQuestion, Reason: "skipped", Question: q(func(v *Question) { v.Then = "stop" })}, []string{
			"WARN Wait for the answer skipped; stop the run (exit 13); the question stays open (ASK_TIMEOUT_ACTION=stop)"}},
		{"stopped", waitEnded{Kind: WaitQuestion, Reason: "stopped", Question: q(nil)}, []string{
			"INFO The question stays open: answer it with ralph_loop --answer, and the next run's first call gets the answer"}},
		{"carried", QuestionCarried{Question: "Which?", Loop: 4}, []string{
			`WARN A question an earlier run asked (loop 4) is still open: "Which?"; no call until it is answered`}},
	} {
		var got []Line
		switch v := tc.v.(type) {
		case waitEnded:
			got = Wait(v).EndLines(Moment{})
		case Wait:
			got = v.StartLines(Moment{})
		case QuestionCarried:
			got = v.Lines()
		}
		if g := golden(got); strings.Join(g, "\n") != strings.Join(tc.want, "\n") {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, g, tc.want)
		}
	}
}

// TestQuestionWords: the headline of each question event (notifications,
// the dashboard's timeline) and the stop line of an unanswered question,
// the question on one line with its controls made visible.
func TestQuestionWords(t *testing.T) {
	q := &Question{Text: "Keep \x1b[2J the table?", Loop: 2, Answer: "No.", Via: "command", Then: "continue"}
	for _, tc := range []struct {
		e    Event
		want string
	}{
		{Event{Type: QuestionAsked, Question: q}, `The agent asks (loop 2): "Keep \u001b[2J the table?"; answer with ralph_loop --answer, the dashboard or the answer file`},
		{Event{Type: QuestionAnswered, Question: q}, `Answered (via command): "No."`},
		{Event{Type: QuestionUnanswered, Reason: "timeout", Question: q}, `No answer to "Keep \u001b[2J the table?" (timeout); the next call is told nobody answered and takes its own default`},
	} {
		if got := tc.e.Headline(); got != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.e.Type, got, tc.want)
		}
	}
	got := (Stop{Kind: StopUnanswered, Question: "Keep \x1b]52;c;eA==\x07 it?", AskTimeout: 30 * time.Minute}).Sentence()
	want := `nobody answered the agent's question within ASK_TIMEOUT=30m0s (ASK_TIMEOUT_ACTION=stop): "Keep \u001b]52;c;eA==\u0007 it?"; answer it with ralph_loop --answer "YOUR ANSWER" and run ralph_loop again: its first call gets the answer`
	if got != want {
		t.Errorf("stop line:\n got %q\nwant %q", got, want)
	}
}

// A completed run with a task set aside says so in its last line.
func TestCompletedWithTaskSetAside(t *testing.T) {
	p := (Evidence{Plan: PlanCount{Done: 2, Total: 2, Have: true, SetAside: 1}}).line("plan_complete")
	want := "✅ Completed (plan_complete): plan 2/2 (1 more set aside with the agent's unanswered question: - [?] in @fix_plan.md); no quality gates configured"
	if p.Text != want {
		t.Errorf("got  %q\nwant %q", p.Text, want)
	}
}
