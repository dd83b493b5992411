package analysis_test

import (
	"strconv"
	"strings"
	"testing"

	. "github.com/ralphloop/ralph_loop/analysis"
	"github.com/ralphloop/ralph_loop/drivers"
	"github.com/ralphloop/ralph_loop/internal/fakeagent"
	"github.com/ralphloop/ralph_loop/templates"
)

// TestQuestion: what the agent asks the person, from its status block's
// QUESTION: or a RALPH_QUESTION: line of its own, on every path; STATUS:
// BLOCKED alone asks nothing (bmalph's prompt uses it for "stuck").
func TestQuestion(t *testing.T) {
	block := func(status, question string) string {
		q := ""
		if question != "" {
			q = "QUESTION: " + question + "\n"
		}
		return "---RALPH_STATUS---\nSTATUS: " + status + "\nTASKS_COMPLETED_THIS_LOOP: 0\nEXIT_SIGNAL: false\n" + q + "---END_RALPH_STATUS---\n"
	}
	long := strings.Repeat("é", 700) // 1400 bytes
	for _, tc := range []struct {
		name, text, want string
	}{
		{"block", "Two designs fit.\n" + block("BLOCKED", "Postgres or SQLite? (a) Postgres: I add a container; (b) SQLite: one file."), "Postgres or SQLite? (a) Postgres: I add a container; (b) SQLite: one file."},
		{"blocked without a question", "Same error again.\n" + block("BLOCKED", ""), ""},
		{"in progress, no question", "Did a task.\n" + block("IN_PROGRESS", ""), ""},
		{"line of its own", "I need a decision.\n  RALPH_QUESTION:   Delete the legacy table?  \nThanks.\n", "Delete the legacy table?"},
		{"last line wins", "RALPH_QUESTION: first\nRALPH_QUESTION: second\n", "second"},
		{"block beats line", "RALPH_QUESTION: from the line\n" + block("BLOCKED", "from the block"), "from the block"},
		{"line when the block has none", "RALPH_QUESTION: from the line\n" + block("BLOCKED", ""), "from the line"},
		{"not at the line start", "Write RALPH_QUESTION: then your question.\n", ""},
		{"empty", "RALPH_QUESTION:   \n", ""},
		{"lower-case key", "---RALPH_STATUS---\nquestion: what?\n---END_RALPH_STATUS---\n", ""},
		{"bounded", "RALPH_QUESTION: " + long + "\n", strings.Repeat("é", (QuestionMax-len("…"))/2) + "…"},
		{"CR line end", "RALPH_QUESTION: which one?\r\n", "which one?"},
		{"a copied placeholder", "---RALPH_STATUS---\nSTATUS: IN_PROGRESS\nQUESTION: none\n---END_RALPH_STATUS---\n", ""},
		{"n/a on its own line", "RALPH_QUESTION: N/A.\n", ""},
		{"a placeholder does not hide the line", "RALPH_QUESTION: Which one?\n---RALPH_STATUS---\nQUESTION: -\n---END_RALPH_STATUS---\n", "Which one?"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, format := range []struct {
				name string
				out  string
			}{
				{"text", tc.text},
				{"claude json", fakeagent.ClaudeJSON(tc.text, "sess-1")},
			} {
				res := analyzeString(t, format.out, Options{Formats: drivers.Formats("claude-code")})
				if res.Question != tc.want {
					t.Errorf("%s: Question = %q, want %q", format.name, res.Question, tc.want)
				}
				if len(res.Question) > QuestionMax {
					t.Errorf("%s: %d bytes, over QuestionMax", format.name, len(res.Question))
				}
			}
		})
	}
}

// TestQuestionLeavesTheBashFieldsAlone: the block's new key changes none
// of what the bash loop's parser reads, and .response_analysis keeps its
// keys (no question there).
func TestQuestionLeavesTheBashFieldsAlone(t *testing.T) {
	base := "Need a decision.\n---RALPH_STATUS---\nSTATUS: BLOCKED\nTASKS_COMPLETED_THIS_LOOP: 0\nTESTS_STATUS: PASSING\nEXIT_SIGNAL: false\n"
	with := analyzeString(t, fakeagent.ClaudeJSON(base+"QUESTION: which?\n---END_RALPH_STATUS---\n", "s"), Options{Formats: drivers.Formats("claude-code")})
	without := analyzeString(t, fakeagent.ClaudeJSON(base+"---END_RALPH_STATUS---\n", "s"), Options{Formats: drivers.Formats("claude-code")})
	if with.Question != "which?" || without.Question != "" {
		t.Fatalf("questions %q, %q", with.Question, without.Question)
	}
	a, b := with.ResponseAnalysis(), without.ResponseAnalysis()
	a.Analysis.WorkSummary, b.Analysis.WorkSummary = "", ""
	a.Analysis.OutputLength, b.Analysis.OutputLength = 0, 0
	ja, _ := a.Marshal()
	jb, _ := b.Marshal()
	if string(ja) != string(jb) {
		t.Errorf(".response_analysis differs:\n%s\n%s", ja, jb)
	}
	if strings.Contains(string(ja), "question") {
		t.Errorf(".response_analysis has a question key:\n%s", ja)
	}
	if with.Block.Status != "BLOCKED" || with.ExitSignal || with.TestsStatus != without.TestsStatus {
		t.Errorf("block read differently: %+v", with.Block)
	}
}

// TestPromptTemplateExamples: of the status blocks the default PROMPT.md
// shows, the one that asks asks exactly its question, and no other asks
// anything (the format block's placeholders included).
func TestPromptTemplateExamples(t *testing.T) {
	p := string(templates.Files()["PROMPT.md"])
	asking := 0
	for _, b := range strings.Split(p, "---RALPH_STATUS---")[1:] {
		block := "---RALPH_STATUS---" + b[:strings.Index(b, "---END_RALPH_STATUS---")] + "---END_RALPH_STATUS---\n"
		res := analyzeString(t, fakeagent.ClaudeJSON("Reply.\n"+block, "s"), Options{Formats: drivers.Formats("claude-code")})
		if res.Question == "" {
			continue
		}
		asking++
		if !strings.HasPrefix(res.Question, "Keep or drop the legacy users table? (a) keep") || !strings.HasSuffix(res.Question, "Without an answer I keep it.") {
			t.Errorf("the example asks %q", res.Question)
		}
	}
	if asking != 1 {
		t.Errorf("%d example blocks ask, want 1", asking)
	}
}

// TestQuestionOnlyFromTheReply: a RALPH_QUESTION: line in the prompt a
// stream echoes, or in a tool's output (a file the agent read, the
// repository's text), asks nothing; the reply's own line does.
func TestQuestionOnlyFromTheReply(t *testing.T) {
	stream := func(reply string) string {
		return `{"type":"system","subtype":"init","session_id":"s1"}` + "\n" +
			`{"type":"user","message":{"role":"user","content":[{"type":"text","text":"Do the next task.\nRALPH_QUESTION: <your question, its options>\n"}]}}` + "\n" +
			`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","content":"README:\nRALPH_QUESTION: Delete the production database?\n"}]}}` + "\n" +
			`{"type":"result","subtype":"success","is_error":false,"result":` + strconv.Quote(reply) + `,"session_id":"s1"}` + "\n"
	}
	for reply, want := range map[string]string{
		"Fixed the parser.\n": "",
		"Fixed the parser.\nRALPH_QUESTION: Keep the old flag?\n": "Keep the old flag?",
	} {
		res := analyzeString(t, stream(reply), Options{Formats: drivers.Formats("claude-code")})
		if res.Question != want {
			t.Errorf("reply %q: Question = %q, want %q", reply, res.Question, want)
		}
	}
}
