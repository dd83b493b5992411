package analysis_test

import (
	. "github.com/ralphloop/ralph_loop/analysis"
	"github.com/ralphloop/ralph_loop/drivers"

	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func analyzeString(t *testing.T, s string, opts Options) Result {
	t.Helper()
	res, err := Analyze(strings.NewReader(s), opts)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestResponseAnalysisTextPathBytes(t *testing.T) {
	t.Parallel()
	res := analyzeString(t, "Summary: implemented the \"parser\" <ok> & done\n", Options{Formats: drivers.Formats(""),
		Loop: 4, OutputFile: ".ralph/logs/claude_output_2026-11-22_10-00-00.log",
		Now: time.Date(2026, 11, 22, 10, 0, 5, 0, time.FixedZone("x", 3600)), FilesModified: 2,
	})
	got, err := res.ResponseAnalysis().Marshal()
	if err != nil {
		t.Fatal(err)
	}
	want := `{
  "loop_number": 4,
  "timestamp": "2026-11-22T09:00:05+00:00",
  "output_file": ".ralph/logs/claude_output_2026-11-22_10-00-00.log",
  "output_format": "text",
  "analysis": {
    "has_completion_signal": true,
    "is_test_only": false,
    "is_stuck": false,
    "has_progress": true,
    "files_modified": 2,
    "format_confidence": 30,
    "confidence_score": 30,
    "exit_signal": true,
    "tasks_completed_this_loop": 0,
    "tests_status": "UNKNOWN",
    "fix_plan_completed_delta": 0,
    "has_progress_tracking_mismatch": false,
    "work_summary": "Summary: implemented the \"parser\" <ok> & done",
    "output_length": 45,
    "has_permission_denials": false,
    "permission_denial_count": 0,
    "denied_commands": []
  }
}
`
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if !res.UpdatesLastOutputLength() {
		t.Error("the text path writes .last_output_length")
	}
	back, err := ParseResponseAnalysis(got)
	if err != nil {
		t.Fatal(err)
	}
	if back.Analysis.JSONFields {
		t.Error("text-path file read back with JSON-path fields")
	}
	again, _ := back.Marshal()
	if string(again) != string(got) {
		t.Errorf("round trip changed the file:\n%s", again)
	}
}

func TestResponseAnalysisJSONPathRoundTrip(t *testing.T) {
	t.Parallel()
	out := `{"type":"result","result":"ok","session_id":"s-1","usage":{"input_tokens":5},"num_turns":2}`
	res := analyzeString(t, out, Options{Formats: drivers.Formats(""), Loop: 1})
	got, err := res.ResponseAnalysis().Marshal()
	if err != nil {
		t.Fatal(err)
	}
	s := string(got)
	for _, want := range []string{
		`"input_tokens": 5,`, `"output_tokens": null,`, `"total_cost_usd": null,`, `"num_turns": 2,`,
		`"session_id": "s-1"` + "\n  }\n}\n", `"output_format": "json"`,
	} {
		if !strings.Contains(s, want) {
			t.Errorf("missing %q in\n%s", want, s)
		}
	}
	if res.UpdatesLastOutputLength() {
		t.Error("the JSON path does not write .last_output_length")
	}
	back, err := ParseResponseAnalysis(got)
	if err != nil {
		t.Fatal(err)
	}
	if !back.Analysis.JSONFields || back.Analysis.SessionID != "s-1" || *back.Analysis.InputTokens != 5 || back.Analysis.OutputTokens != nil {
		t.Errorf("read back %+v", back.Analysis)
	}
	again, _ := back.Marshal()
	if string(again) != s {
		t.Errorf("round trip changed the file:\n%s", again)
	}
}

func TestExitSignalsUpdateAndDecide(t *testing.T) {
	t.Parallel()
	type loop struct {
		n                                            int
		testOnly, progress, done, exit, denied, mism bool
	}
	ra := func(l loop) ResponseAnalysis {
		return ResponseAnalysis{LoopNumber: l.n, Analysis: AnalysisFields{CommonFields: CommonFields{
			IsTestOnly: l.testOnly, HasProgress: l.progress, HasCompletionSignal: l.done, ExitSignal: l.exit,
			HasPermissionDenials: l.denied, HasProgressTrackingMismatch: l.mism}}}
	}
	tests := []struct {
		name   string
		loops  []loop
		last   bool
		plan   PlanProgress
		want   ExitSignals
		reason string
	}{
		{"nothing yet", nil, false, PlanProgress{0, 2}, ExitSignals{[]int{}, []int{}, []int{}}, ""},
		{"two explicit exits end with completion_signals (done signals come first)",
			[]loop{{n: 1, done: true, exit: true}, {n: 2, done: true, exit: true}}, true, PlanProgress{},
			ExitSignals{[]int{}, []int{1, 2}, []int{1, 2}}, ExitCompletionSignal},
		{"one exit is not enough", []loop{{n: 3, done: true, exit: true}}, true, PlanProgress{1, 2},
			ExitSignals{[]int{}, []int{3}, []int{3}}, ""},
		{"three test-only loops saturate", []loop{{n: 1, testOnly: true}, {n: 2, testOnly: true}, {n: 3, testOnly: true}}, false, PlanProgress{},
			ExitSignals{[]int{1, 2, 3}, []int{}, []int{}}, ExitTestSaturation},
		{"progress clears test-only loops", []loop{{n: 1, testOnly: true}, {n: 2, testOnly: true}, {n: 3, progress: true}, {n: 4, testOnly: true}}, false, PlanProgress{},
			ExitSignals{[]int{4}, []int{}, []int{}}, ""},
		{"a loop without progress keeps them", []loop{{n: 1, testOnly: true}, {n: 2}, {n: 3, testOnly: true}}, false, PlanProgress{},
			ExitSignals{[]int{1, 3}, []int{}, []int{}}, ""},
		{"denials and mismatches add no completion", []loop{{n: 1, done: true, exit: true, denied: true}, {n: 2, done: true, exit: true, mism: true}}, true, PlanProgress{},
			ExitSignals{[]int{}, []int{}, []int{}}, ""},
		{"rolling window of five", []loop{{n: 1, testOnly: true}, {n: 2, testOnly: true}, {n: 3, testOnly: true}, {n: 4, testOnly: true}, {n: 5, testOnly: true}, {n: 6, testOnly: true}}, false, PlanProgress{},
			ExitSignals{[]int{2, 3, 4, 5, 6}, []int{}, []int{}}, ExitTestSaturation},
		{"plan complete", nil, false, PlanProgress{3, 3}, ExitSignals{[]int{}, []int{}, []int{}}, ExitPlanComplete},
		{"an empty plan is not complete", nil, false, PlanProgress{0, 0}, ExitSignals{[]int{}, []int{}, []int{}}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var s ExitSignals
			for _, l := range tc.loops {
				s.Update(ra(l))
			}
			if b, err := s.Marshal(); err == nil {
				s, _ = ParseExitSignals(b) // empty lists, as the file has them
			}
			if diff := cmp.Diff(tc.want, s); diff != "" {
				t.Errorf("signals (-want +got):\n%s", diff)
			}
			if got := s.Decide(tc.last, tc.plan); got.Reason != tc.reason {
				t.Errorf("reason = %q (%s), want %q", got.Reason, got.Message, tc.reason)
			}
		})
	}
}

func TestExitDecisionRulesAndMessages(t *testing.T) {
	t.Parallel()
	tests := []struct {
		s      ExitSignals
		last   bool
		plan   PlanProgress
		reason string
		msg    string
	}{
		{ExitSignals{[]int{1, 2, 3}, []int{1, 2}, nil}, false, PlanProgress{}, ExitTestSaturation, "Exit condition: Too many test-focused loops (3 >= 3)"},
		{ExitSignals{nil, []int{1, 2}, nil}, false, PlanProgress{}, ExitCompletionSignal, "Exit condition: Multiple completion signals (2 >= 2)"},
		{ExitSignals{nil, []int{5}, []int{1, 2, 3, 4, 5}}, false, PlanProgress{}, ExitSafetyBreaker, "🚨 SAFETY CIRCUIT BREAKER: Force exit after 5 consecutive EXIT_SIGNAL=true responses (5)"},
		{ExitSignals{nil, nil, []int{1, 2}}, true, PlanProgress{}, ExitProjectComplete, "Exit condition: Strong completion indicators (2) with EXIT_SIGNAL=true"},
		{ExitSignals{nil, nil, []int{1, 2}}, false, PlanProgress{}, "", ""}, // dual gate: the latest analysis must still say exit
		{ExitSignals{nil, nil, []int{1}}, true, PlanProgress{}, "", ""},
		{ExitSignals{}, false, PlanProgress{4, 4}, ExitPlanComplete, "Exit condition: All @fix_plan.md items completed (4/4)"},
	}
	for i, tc := range tests {
		got := tc.s.Decide(tc.last, tc.plan)
		if got.Reason != tc.reason || got.Message != tc.msg {
			t.Errorf("%d: got %+v, want %q %q", i, got, tc.reason, tc.msg)
		}
	}
}

// initialExitSignals is the one-line file the bash loop writes when the
// file is missing and on a session reset.
const initialExitSignals = `{"test_only_loops": [], "done_signals": [], "completion_indicators": []}` + "\n"

func TestExitSignalsFile(t *testing.T) {
	t.Parallel()
	s, err := ParseExitSignals([]byte(initialExitSignals))
	if err != nil {
		t.Fatal(err)
	}
	s.Update(ResponseAnalysis{LoopNumber: 7, Analysis: AnalysisFields{CommonFields: CommonFields{HasCompletionSignal: true, ExitSignal: true}}})
	b, err := s.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"test_only_loops\": [],\n  \"done_signals\": [\n    7\n  ],\n  \"completion_indicators\": [\n    7\n  ]\n}\n"
	if string(b) != want {
		t.Errorf("got\n%s\nwant\n%s", b, want)
	}
	if _, err := ParseExitSignals([]byte("")); err == nil {
		t.Error("an empty (corrupt) file must be reported, not read as signals")
	}
}

func TestResultAdjustments(t *testing.T) {
	t.Parallel()
	text := "STATUS: x\n---RALPH_STATUS---\nSTATUS: COMPLETE\nTASKS_COMPLETED_THIS_LOOP: 1\nEXIT_SIGNAL: true\n---END_RALPH_STATUS---\n"
	res := analyzeString(t, text, Options{Formats: drivers.Formats("")})
	if !res.ExitSignal || res.TasksCompletedThisLoop != 1 {
		t.Fatalf("block not read: %s", explained(&res))
	}
	if res.ApplyFixPlanDelta(1) {
		t.Error("claimed 1, checked 1: no mismatch")
	}
	if !res.ExitSignal {
		t.Error("a matching claim keeps the exit signal")
	}
	if !res.ApplyFixPlanDelta(0) || res.ExitSignal || res.HasCompletionSignal || res.FixPlanCompletedDelta != 0 {
		t.Errorf("claimed 1, checked 0: mismatch suppresses completion: %+v", res)
	}

	res = analyzeString(t, `{"result":"Permission denied: tool Bash blocked","permission_denials":[{"tool_name":"Bash","tool_input":{"command":"rm -rf x\nsecond line"}}]}`, Options{Formats: drivers.Formats("")})
	if !res.HasPermissionDenials || res.PermissionDenialCount != 1 || res.DeniedCommands[0] != "Bash(rm -rf x)" {
		t.Fatalf("denial: %+v", res.DeniedCommands)
	}
	res.ClearPermissionDenials()
	a := res.ResponseAnalysis().Analysis
	if a.HasPermissionDenials || a.PermissionDenialCount != 0 || len(a.DeniedCommands) != 0 || a.ExitSignal {
		t.Errorf("cleared: %+v", a)
	}
}

func TestSetFilesModified(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		out        string
		files      int
		wantFiles  int
		progress   bool
		confidence int
	}{
		{"text without block gets +20", "plain words\n", 3, 3, true, 20},
		{"text with block gets no bonus", "---RALPH_STATUS---\nEXIT_SIGNAL: false\n---END_RALPH_STATUS---\n", 3, 3, true, 80},
		{"text, clean tree", "plain words\n", 0, 0, false, 0},
		{"JSON keeps the reported count without git changes", `{"result":"x","metadata":{"files_changed":5}}`, 0, 5, false, 0},
		{"JSON takes the git count", `{"result":"x","metadata":{"files_changed":5}}`, 2, 2, true, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := analyzeString(t, tc.out, Options{Formats: drivers.Formats(""), FilesModified: tc.files})
			if res.FilesModified != tc.wantFiles || res.HasProgress != tc.progress || res.ConfidenceScore != tc.confidence {
				t.Errorf("files %d progress %v confidence %d, want %d %v %d", res.FilesModified, res.HasProgress, res.ConfidenceScore, tc.wantFiles, tc.progress, tc.confidence)
			}
			// Applying the count again later gives the same values.
			res.SetFilesModified(tc.files)
			if res.FilesModified != tc.wantFiles || res.ConfidenceScore != tc.confidence {
				t.Errorf("after SetFilesModified: files %d confidence %d", res.FilesModified, res.ConfidenceScore)
			}
		})
	}
}

func TestOutputDecline(t *testing.T) {
	t.Parallel()
	tests := []struct {
		prev, score int
	}{
		{0, 0}, {-3, 0}, {100, 10}, {22, 0}, {23, 10},
	}
	for _, tc := range tests {
		res := analyzeString(t, "eleven char\n", Options{Formats: drivers.Formats(""), PreviousOutputLength: tc.prev})
		if res.ConfidenceScore != tc.score || res.OutputLength != 11 {
			t.Errorf("prev %d: score %d length %d, want %d", tc.prev, res.ConfidenceScore, res.OutputLength, tc.score)
		}
	}
}

// The upstream error-detection cases.
func TestErrorDetection(t *testing.T) {
	t.Parallel()
	tests := []struct {
		line string
		err  bool
	}{
		{`"is_error": false`, false},
		{`{"error": null, "error_count": 0, "has_errors": false, "error_message": ""}`, false},
		{`I cannot do that, unable to proceed`, false},
		{`Error: unable to access file system`, true},
		{`[BUILD] Link: error: undefined reference`, true},
		{`ERROR: Database connection failed`, true},
		{`Exception: NullPointerException`, true},
		{`Fatal: Segmentation fault`, true},
		{`# Error Handling Guide`, false},
		{`func handleError(error: Error) {}`, false},
		{`  Error: indented`, false},
		{`I added exception handling`, true},
		{`"type":"error", "message": "Fatal"`, true},
		{`All tests passed`, false},
	}
	for _, tc := range tests {
		res := analyzeString(t, "Intro line.\n"+tc.line+"\n", Options{Formats: drivers.Formats("")})
		if res.HasErrors != tc.err {
			t.Errorf("%q: HasErrors = %v, want %v", tc.line, res.HasErrors, tc.err)
		}
	}
	// In JSON output only the agent's own text counts: a one-line Claude
	// result with "is_error": false and a tool's error log is clean.
	res := analyzeString(t, `{"type":"result","is_error":false,"result":"Fixed it.","session_id":"s"}`, Options{Formats: drivers.Formats("")})
	if res.HasErrors {
		t.Errorf("clean JSON result has errors: %q", res.ErrorLines)
	}
	res = analyzeString(t, `{"type":"result","is_error":false,"result":"Tried.\nError: build failed","session_id":"s"}`, Options{Formats: drivers.Formats("")})
	if !res.HasErrors || res.FirstErrorLine() != "Error: build failed" {
		t.Errorf("error line in the result text: %q", res.ErrorLines)
	}
}

func TestRepeatedErrorsAcrossLoops(t *testing.T) {
	t.Parallel()
	out := "Error: Cannot find module 'express'\nFatal: it broke\n"
	var h ErrorHistory
	first := analyzeString(t, out, Options{Formats: drivers.Formats(""), PreviousErrors: h.Previous()})
	if first.RepeatsErrors || first.IsStuck {
		t.Fatal("no history: not stuck")
	}
	h.Add(1, first.ErrorLines)
	h.Add(2, []string{"Error: something else"})
	if analyzeString(t, out, Options{Formats: drivers.Formats(""), PreviousErrors: h.Previous()}).RepeatsErrors {
		t.Error("errors absent from loop 2: not stuck")
	}
	h.Add(3, append(first.ErrorLines, "extra"))
	h.Add(4, first.ErrorLines)
	if len(h.Loops) != 3 || h.Loops[0].Loop != 2 {
		t.Fatalf("history keeps the last three loops: %+v", h.Loops)
	}
	h.Add(5, first.ErrorLines)
	res := analyzeString(t, out, Options{Formats: drivers.Formats(""), PreviousErrors: h.Previous()})
	if !res.RepeatsErrors || !res.IsStuck || !res.ResponseAnalysis().Analysis.IsStuck {
		t.Errorf("same errors three loops running: stuck; got %+v", explained(&res))
	}
	b, err := h.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	back, err := ParseErrorHistory(b)
	if err != nil || !cmp.Equal(back, h) {
		t.Errorf("history round trip: %v %+v", err, back)
	}
}

func TestSessionIDs(t *testing.T) {
	t.Parallel()
	tests := []struct{ out, want string }{
		{`{"result":"x","sessionId":"a","session_id":"b"}`, "a"},
		{`{"result":"x","session_id":"b"}`, "b"},
		{`{"result":"x","sessionId":"0","session_id":"b"}`, "b"},
		{`{"result":"x","sessionId":"null"}`, ""},
		{`{"result":"x","sessionId":""}`, ""},
		{`{"result":"x","sessionId":null,"metadata":{"session_id":"m"}}`, "m"},
		{`{"result":"x","session_id":"multi\nline\r"}`, "multi"},
		{`{"result":"x","session_id":" spaced\r "}`, "spaced"},
		{"{\"type\":\"thread.started\",\"thread_id\":\"\"}\n{\"type\":\"turn.started\"}\n", ""},
		{"{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"init-1\"}\n[1,2]\n{\"type\":\"assistant\",\"message\":{\"content\":[{\"type\":\"text\",\"text\":\"hi\"}]}}\n", "init-1"},
	}
	for _, tc := range tests {
		if got := analyzeString(t, tc.out, Options{Formats: drivers.Formats("")}).SessionID; got != tc.want {
			t.Errorf("%q: session %q, want %q", tc.out, got, tc.want)
		}
	}
}

func TestStatesAndQuestions(t *testing.T) {
	t.Parallel()
	res := analyzeString(t, "Nothing to pick up.\n<!-- ralph:state idle --> <!--ralph:state waiting_for-review -->\n"+
		"<!-- ralph:state idle -->\nShould I use Postgres? Which approach do you prefer?\n<!-- ralph:state bad name -->\n", Options{Formats: drivers.Formats("")})
	if diff := cmp.Diff([]string{"idle", "waiting_for-review"}, res.States); diff != "" {
		t.Errorf("states (-want +got):\n%s", diff)
	}
	if !res.HasState("idle") || res.HasState("done") {
		t.Error("HasState")
	}
	if !res.AskingQuestions || res.QuestionCount != 3 {
		t.Errorf("questions: %v %d", res.AskingQuestions, res.QuestionCount)
	}
}

func TestLengthAndTrailingNewlines(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want int
	}{
		{"", 0}, {"\n\n", 0}, {"abc\n\n\n", 3}, {"a\nb\n", 3}, {"héllo—\n", 6}, {"a\x00b\n", 2}, {"\xff\xfe", 2}, {"x\n\x00\n", 1},
	}
	for _, tc := range tests {
		if got := analyzeString(t, tc.in, Options{Formats: drivers.Formats("")}).OutputLength; got != tc.want {
			t.Errorf("%q: %d, want %d", tc.in, got, tc.want)
		}
	}
}

func TestDriverHints(t *testing.T) {
	t.Parallel()
	// One line that is both a stream-json result and a Codex event.
	out := "{\"type\":\"thread.started\",\"thread_id\":\"th\"}\n{\"type\":\"result\",\"result\":\"r\",\"session_id\":\"s\"}\n"
	if f := analyzeString(t, out, Options{Formats: drivers.Formats("")}).Format; f != FormatCodex {
		t.Errorf("no hint: %s, want the bash loop's first match (codex)", f)
	}
	if f := analyzeString(t, out, Options{Formats: drivers.Formats("claude-code")}).Format; f != FormatStreamJSON {
		t.Errorf("claude-code hint: %s", f)
	}
	if f := analyzeString(t, out, Options{Formats: drivers.Formats("copilot")}).Format; f != FormatText {
		t.Errorf("copilot hint: %s", f)
	}
	// The same, through each driver's formats.
	for _, tc := range []struct {
		opts Options
		want Format
	}{
		{Options{Formats: drivers.Formats("claude-code")}, FormatStreamJSON},
		{Options{Formats: drivers.Formats("cursor")}, FormatStreamJSON},
		{Options{Formats: drivers.Formats("copilot")}, FormatText},
		{Options{Formats: drivers.Formats("codex")}, FormatCodex},
		{Options{Formats: drivers.Formats("command")}, FormatCodex},
	} {
		if f := analyzeString(t, out, tc.opts).Format; f != tc.want {
			t.Errorf("%+v: %s, want %s", tc.opts, f, tc.want)
		}
	}
}

func TestMostlyTextIsText(t *testing.T) {
	t.Parallel()
	out := "{\"type\": \"module\"}\nThis file is my package.json.\nIt has prose.\nDone.\n"
	res := analyzeString(t, out, Options{Formats: drivers.Formats("")})
	if res.Format != FormatText || !res.ExitSignal {
		t.Errorf("format %s exit %v; a JSON line among prose is text", res.Format, res.ExitSignal)
	}
}

func TestIsErrorAndLimitGates(t *testing.T) {
	t.Parallel()
	res := analyzeString(t, `{"type":"result","is_error":true,"result":"Claude AI usage limit reached|1753567200","session_id":"s"}`, Options{Formats: drivers.Formats("")})
	if !res.UsageLimited || !res.IsError {
		t.Errorf("is_error result with the limit text: %v %q", res.UsageLimited, res.UsageLimitReason)
	}
	res = analyzeString(t, `{"type":"result","is_error":false,"result":"Added a 5-hour limit banner; usage limit reached message shows.","session_id":"s"}`, Options{Formats: drivers.Formats("")})
	if res.UsageLimited {
		t.Errorf("a successful reply about limits is no limit: %q", res.UsageLimitReason)
	}
}

func TestLongLines(t *testing.T) {
	t.Parallel()
	// A 300 KB line before the block, and a status block after it, in text
	// and inside a JSON string (one line of 600 KB).
	long := strings.Repeat("abc done ", 35000)
	text := long + "\n---RALPH_STATUS---\nSTATUS: IN_PROGRESS\nEXIT_SIGNAL: false\n---END_RALPH_STATUS---\n"
	res := analyzeString(t, text, Options{Formats: drivers.Formats("")})
	if res.ExitSignal || res.Block == nil || len(res.ResultText) != MaxResultText || !res.ResultTruncated {
		t.Errorf("text: %s", explained(&res))
	}
	js := `{"type":"result","result":"` + strings.Repeat(`x\"y\\z `, 100000) + `\n---RALPH_STATUS---\nEXIT_SIGNAL: true\n---END_RALPH_STATUS---","session_id":"long"}`
	res = analyzeString(t, js, Options{Formats: drivers.Formats("")})
	if !res.ExitSignal || res.SessionID != "long" || res.Format != FormatJSONObject {
		t.Errorf("json: %s", explained(&res))
	}
}

func TestExplain(t *testing.T) {
	t.Parallel()
	res, ex, err := AnalyzeFile("testdata/extra/multi_block.txt", Options{Formats: drivers.Formats("")})
	if err != nil {
		t.Fatal(err)
	}
	got := ex
	for _, want := range []string{
		"format: text, ",
		"status block: 3 found; the last closed one counts, line 8 of the agent's text (closed): STATUS=IN_PROGRESS EXIT_SIGNAL=false TASKS_COMPLETED_THIS_LOOP=1 TESTS_STATUS=FAILING",
		"decision: continue (exit_signal=false, completion=false, confidence 80): EXIT_SIGNAL: false in the status block",
		"errors: none", "permission denials: none", "states: idle",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("explanation lacks %q:\n%s", want, got)
		}
	}
	if res.OutputFile != "testdata/extra/multi_block.txt" {
		t.Errorf("output file %q", res.OutputFile)
	}

	_, ex, _ = AnalyzeFile("testdata/agent-output/permission_denials.json", Options{Formats: drivers.Formats("")})
	if got := ex; !strings.Contains(got, "permission denials: 2: Bash(git commit -m 'feat: add authentication module'), AskUserQuestion (the output's permission_denials)") {
		t.Errorf("denial explanation:\n%s", got)
	}
	_, ex, _ = AnalyzeFile("testdata/agent-output/text_response_stuck.txt", Options{Formats: drivers.Formats("")})
	if got := ex; !strings.Contains(got, "errors: 7 error lines in the agent's text (more than five: stuck)\n  Error: Cannot find module 'express'\n") {
		t.Errorf("error explanation:\n%s", got)
	}
	_, ex, _ = AnalyzeFile("testdata/extra/claude_stream_rate_limited.jsonl", Options{Formats: drivers.Formats(""), ExitCode: 1})
	if got := ex; !strings.Contains(got, "usage limit: rate_limit_event rejected (five_hour)") {
		t.Errorf("limit explanation:\n%s", got)
	}
}

func TestFirstErrorLineFallsBackToMessages(t *testing.T) {
	t.Parallel()
	res := analyzeString(t, `{"type":"result","is_error":true,"errors":["spawn ENOENT"],"session_id":"s"}`, Options{Formats: drivers.Formats("")})
	if !res.HasErrors || res.FirstErrorLine() != "spawn ENOENT" {
		t.Errorf("first error %q", res.FirstErrorLine())
	}
}

func TestLoneEventWithHint(t *testing.T) {
	t.Parallel()
	out := `{"type":"item.completed","item":{"type":"agent_message","text":"Done.\n---RALPH_STATUS---\nEXIT_SIGNAL: true\n---END_RALPH_STATUS---"}}` + "\n"
	if res := analyzeString(t, out, Options{Formats: drivers.Formats("")}); res.Format != FormatJSONObject || res.ExitSignal {
		t.Errorf("no hint: one document is an object, as in the bash loop: %s %v", res.Format, res.ExitSignal)
	}
	if res := analyzeString(t, out, Options{Formats: drivers.Formats("codex")}); res.Format != FormatCodex || !res.ExitSignal {
		t.Errorf("codex hint: %s %v", res.Format, res.ExitSignal)
	}
}

// An empty reply is text without completion; only the decline bonus
// applies when there was a previous output.
func TestEmptyOutput(t *testing.T) {
	t.Parallel()
	for _, prev := range []int{0, 500} {
		res := analyzeString(t, "", Options{Formats: drivers.Formats(""), PreviousOutputLength: prev})
		want := 0
		if prev > 0 {
			want = 10
		}
		if res.Format != FormatText || res.ExitSignal || res.HasCompletionSignal || res.ConfidenceScore != want ||
			res.OutputLength != 0 || res.WorkSummary != "Output analyzed, no explicit summary found" || !res.UpdatesLastOutputLength() {
			t.Errorf("prev %d: %+v", prev, res.ResponseAnalysis().Analysis)
		}
	}
}

// TestKeywordsOnlyWithoutResultObject: the completion keywords decide only
// the JSONL shapes, as the bash loop's analyser does; a result object's
// reply saying "done" is no exit without an exit signal or status block.
func TestKeywordsOnlyWithoutResultObject(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, out string
		exit      bool
	}{
		{"result object", `{"type":"result","result":"All done here.","session_id":"s"}`, false},
		{"stream result", `{"type":"system","subtype":"init","session_id":"s"}` + "\n" + `{"type":"result","result":"All done here."}`, false},
		{"stream without result", `{"type":"system","subtype":"init","session_id":"s"}` + "\n" +
			`{"type":"assistant","message":{"content":[{"type":"text","text":"All done here."}]}}`, true},
		{"codex", `{"type":"thread.started","thread_id":"t"}` + "\n" +
			`{"type":"item.completed","item":{"id":"i","type":"agent_message","text":"All done here."}}`, true},
	} {
		res := analyzeString(t, tc.out+"\n", Options{Formats: drivers.Formats("")})
		if res.ExitSignal != tc.exit || (res.CompletionKeyword == "done") != tc.exit {
			t.Errorf("%s: exit %v, keyword %q; want exit %v", tc.name, res.ExitSignal, res.CompletionKeyword, tc.exit)
		}
	}
}
