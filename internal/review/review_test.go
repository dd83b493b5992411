package review

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDue(t *testing.T) {
	base := DueInput{Loop: 5, Mode: modeEnhanced, Interval: 5, GitOK: true, HeadSHA: "bbb", LastSHA: "aaa"}
	with := func(f func(*DueInput)) DueInput { in := base; f(&in); return in }
	tests := []struct {
		name string
		in   DueInput
		want bool
	}{
		{"enhanced on the interval", base, true},
		{"enhanced off the interval", with(func(in *DueInput) { in.Loop = 6 }), false},
		{"enhanced every 10th", with(func(in *DueInput) { in.Loop, in.Interval = 10, 10 }), true},
		{"interval 0 falls back to 5, no division by zero", with(func(in *DueInput) { in.Interval = 0 }), true},
		{"interval 0 off the default interval", with(func(in *DueInput) { in.Interval, in.Loop = 0, 3 }), false},
		{"negative interval", with(func(in *DueInput) { in.Interval = -2 }), true},
		{"interval 1 reviews after loop 1", with(func(in *DueInput) { in.Interval, in.Loop = 1, 1 }), true},
		{"interval 2 not after loop 1", with(func(in *DueInput) { in.Interval, in.Loop = 2, 1 }), false},
		{"interval 1 from loop 2 on", with(func(in *DueInput) { in.Interval, in.Loop = 1, 2 }), true},
		{"loop 0", with(func(in *DueInput) { in.Interval, in.Loop = 1, 0 }), false},
		{"off", with(func(in *DueInput) { in.Mode = modeOff }), false},
		{"unknown mode", with(func(in *DueInput) { in.Mode = "paranoid" }), false},
		{"empty mode", with(func(in *DueInput) { in.Mode = "" }), false},
		{"ultimate after a completed task", with(func(in *DueInput) { in.Mode, in.Loop, in.FixPlanDelta = modeUltimate, 3, 1 }), true},
		{"ultimate without a completed task", with(func(in *DueInput) { in.Mode, in.Loop = modeUltimate, 3 }), false},
		{"ultimate ignores the interval", with(func(in *DueInput) { in.Mode, in.Loop, in.FixPlanDelta = modeUltimate, 7, 2 }), true},
		{"ultimate after loop 1 that ticked a task", with(func(in *DueInput) { in.Mode, in.Loop, in.FixPlanDelta = modeUltimate, 1, 1 }), true},
		{"ultimate not after loop 1 without a ticked task", with(func(in *DueInput) { in.Mode, in.Loop = modeUltimate, 1 }), false},
		{"breaker open", with(func(in *DueInput) { in.BreakerState = "OPEN" }), false},
		{"breaker half open", with(func(in *DueInput) { in.BreakerState = "HALF_OPEN" }), false},
		{"breaker closed", with(func(in *DueInput) { in.BreakerState = "CLOSED" }), true},
		{"nothing changed since the last review", with(func(in *DueInput) { in.LastSHA = "bbb" }), false},
		{"uncommitted changes only", with(func(in *DueInput) { in.LastSHA, in.Dirty = "bbb", true }), true},
		{"no git: the change check is skipped", with(func(in *DueInput) { in.GitOK, in.LastSHA = false, "bbb" }), true},
		{"first review ever", with(func(in *DueInput) { in.LastSHA = "" }), true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Due(tc.in); got != tc.want {
				t.Fatalf("Due(%+v) = %v, want %v", tc.in, got, tc.want)
			}
		})
	}
}

func TestPromptPieces(t *testing.T) {
	if got := diffRange(""); got != "HEAD~5..HEAD" {
		t.Fatalf("diffRange(\"\") = %q", got)
	}
	if got := diffRange("abc"); got != "abc..HEAD" {
		t.Fatalf("diffRange(abc) = %q", got)
	}
	var stat strings.Builder
	for i := 0; i < 30; i++ {
		stat.WriteString(" f" + string(rune('a'+i%26)) + ".go | 1 +\n")
	}
	lines := strings.Split(stat.String(), "\n")
	tests := []struct {
		name, committed, uncommitted, want string
	}{
		{"nothing", "", "\n", "No recent changes"},
		{"committed only", " a.go | 2 +-\n 1 file changed\n", "", " a.go | 2 +-\n 1 file changed"},
		{"uncommitted only", "", " b.go | 1 +\n", "\nUncommitted:\n b.go | 1 +"},
		{"both, cut to 20 and 10 lines", stat.String(), stat.String(), strings.Join(lines[:20], "\n") + "\nUncommitted:\n" + strings.Join(lines[:10], "\n")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, diffContext(tc.committed, tc.uncommitted)); diff != "" {
				t.Fatalf("diffContext (-want +got):\n%s", diff)
			}
		})
	}
	var asked []string
	prompt, system := BuildPrompt([]byte("# Code Review\nReview it.\n\n"), "", func(r string) string { asked = append(asked, r); return "\n" })
	if prompt != "# Code Review\nReview it." || system != "CODE REVIEW LOOP (read-only). Analyze changes since last review. Recent changes: No recent changes" {
		t.Fatalf("BuildPrompt = %q, %q", prompt, system)
	}
	_, system = BuildPrompt(nil, "abc", func(r string) string {
		asked = append(asked, r)
		if r == "" {
			return " b.go | 1 +\n"
		}
		return " a.go | 2 +-\n"
	})
	if want := []string{"HEAD~5..HEAD", "", "abc..HEAD", ""}; !slices.Equal(asked, want) {
		t.Fatalf("BuildPrompt asked for the diff stats of %q, want %q", asked, want)
	}
	if !strings.HasSuffix(system, "Recent changes:  a.go | 2 +-\nUncommitted:\n b.go | 1 +") {
		t.Fatalf("BuildPrompt's system prompt = %q", system)
	}
	if LogName(12) != "logs/review_loop_12.log" || StartMessage(5) != "Starting periodic code review (loop #5)" {
		t.Fatal("log name or start message changed")
	}
	if MissingPromptWarning(".ralph/REVIEW_PROMPT.md") != "Review prompt file not found: .ralph/REVIEW_PROMPT.md — skipping review" {
		t.Fatal("missing-prompt warning changed")
	}
}

const payload = `{"severity":"HIGH","issues_found":2,"summary":"Two problems.","details":[{"severity":"HIGH","file":"src/a.ts","line":42,"issue":"SQL injection","suggestion":"use parameters"},{"severity":"LOW","file":"src/b.ts","line":"7","issue":"typo"}],"extra":true}`

func claudeJSON(t *testing.T, result string) []byte {
	t.Helper()
	b, err := json.Marshal(map[string]any{"type": "result", "subtype": "success", "result": result, "session_id": "s1"})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestParseFindings(t *testing.T) {
	want := Findings{
		Severity: "HIGH", IssuesFound: 2, Summary: "Two problems.",
		Details: []Detail{
			{Severity: "HIGH", File: "src/a.ts", Line: 42, Issue: "SQL injection", Suggestion: "use parameters"},
			{Severity: "LOW", File: "src/b.ts", Line: 7, Issue: "typo"},
		},
	}
	pretty := "{\n  \"severity\": \"HIGH\",\n  \"issues_found\": 2,\n  \"summary\": \"Two problems.\",\n  \"details\": [{\"severity\":\"HIGH\",\"file\":\"src/a.ts\",\"line\":42,\"issue\":\"SQL injection\",\"suggestion\":\"use parameters\"},{\"severity\":\"LOW\",\"file\":\"src/b.ts\",\"line\":\"7\",\"issue\":\"typo\"}]\n}"
	tests := []struct {
		name   string
		output []byte
	}{
		{"text output", []byte("Looked at things.\n" + beginMarker + "\n" + payload + "\n" + endMarker + "\nbye\n")},
		{"pretty printed over lines", []byte(beginMarker + "\n" + pretty + "\n" + endMarker + "\n")},
		{"inside a code fence", []byte("```\n" + beginMarker + "\n```json\n" + payload + "\n```\n" + endMarker + "\n```\n")},
		{"claude json result", claudeJSON(t, "Review done.\n\n"+beginMarker+"\n"+payload+"\n"+endMarker)},
		{"claude json array", []byte(`[{"type":"system"},` + string(claudeJSON(t, beginMarker+"\n"+payload+"\n"+endMarker)) + `]`)},
		{"json lines with item text", []byte(`{"type":"thread.started"}` + "\n" + `{"type":"item.completed","item":{"type":"agent_message","text":` + strings.TrimSuffix(mustJSON(t, beginMarker+"\n"+payload+"\n"+endMarker), "\n") + `}}` + "\n")},
		{"stderr noise and crlf", []byte("warning: x\r\n" + beginMarker + "\r\n" + payload + "\r\n" + endMarker + "\r\n")},
		{"markers on one line", []byte("result: " + beginMarker + payload + endMarker + "\n")},
		{"the last block wins over an echoed example", []byte(beginMarker + "\n{\"severity\":\"LOW\",\"issues_found\":0,\"summary\":\"example\",\"details\":[]}\n" + endMarker + "\nreal:\n" + beginMarker + "\n" + payload + "\n" + endMarker + "\n")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseFindings(tc.output)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got, cmp.AllowUnexported(Findings{}), cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".raw" }, cmp.Ignore())); diff != "" {
				t.Fatalf("findings (-want +got):\n%s", diff)
			}
			if !json.Valid(got.JSON()) || !strings.Contains(string(got.JSON()), `"issues_found"`) {
				t.Fatalf("JSON() = %s", got.JSON())
			}
		})
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestParseFindingsFailures(t *testing.T) {
	tests := []struct {
		name   string
		output string
		want   error
	}{
		{"empty", "", errNoFindings},
		{"no markers", "All good, nothing to report.\n", errNoFindings},
		{"empty block", beginMarker + "\n\n" + endMarker + "\n", errNoFindings},
		{"json without markers", `{"result":"looks fine"}`, errNoFindings},
		{"broken json", beginMarker + "\n{\"severity\": \"HIGH\",\n" + endMarker + "\n", errMalformed},
		{"not an object", beginMarker + "\n[1,2]\n" + endMarker + "\n", errMalformed},
		{"null", beginMarker + "\nnull\n" + endMarker + "\n", errMalformed},
		{"unterminated block is read to the end", beginMarker + "\n{\"severity\":\n", errMalformed},
		{"too large", beginMarker + "\n{\"summary\":\"" + strings.Repeat("x", maxPayload) + "\"}\n" + endMarker, errMalformed},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseFindings([]byte(tc.output))
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
		})
	}
}

func TestOutcome(t *testing.T) {
	tests := []struct {
		f          Findings
		err        error
		level, msg string
	}{
		{Findings{IssuesFound: 3}, nil, "INFO", "Code review complete. 3 issue(s) found."},
		{Findings{}, errNoFindings, "INFO", "Code review complete. No structured findings extracted."},
		{Findings{}, errMalformed, "WARN", "Review findings JSON is malformed — skipping"},
	}
	for _, tc := range tests {
		level, msg := Outcome(tc.f, tc.err)
		if level != tc.level || msg != tc.msg {
			t.Errorf("Outcome(%v) = %s %q, want %s %q", tc.err, level, msg, tc.level, tc.msg)
		}
	}
}

func TestContextFor(t *testing.T) {
	two := []Detail{{Severity: "HIGH", File: "src/a.ts", Issue: "SQL injection"}, {Severity: "LOW", File: "src/b.ts", Issue: "typo"}, {Severity: "LOW", File: "c", Issue: "third"}}
	tests := []struct {
		name string
		f    Findings
		want string
	}{
		{"no issues", Findings{Severity: "LOW", IssuesFound: 0, Summary: "fine"}, ""},
		{"no severity", Findings{IssuesFound: 2, Summary: "x"}, ""},
		{"null severity", Findings{Severity: "null", IssuesFound: 2}, ""},
		{"medium without details", Findings{Severity: "MEDIUM", IssuesFound: 1, Summary: "One  thing\nto fix."}, "REVIEW FINDINGS (MEDIUM, 1 issues): One thing to fix."},
		{"high gets the priority prefix and two details", Findings{Severity: "HIGH", IssuesFound: 3, Summary: "Bad.", Details: two}, "PRIORITY: Fix these code review findings BEFORE picking a new story. REVIEW FINDINGS (HIGH, 3 issues): Bad. Details: - [HIGH] src/a.ts: SQL injection; - [LOW] src/b.ts: typo"},
		{"critical in lower case is still a priority", Findings{Severity: "critical", IssuesFound: 1, Summary: "x"}, "PRIORITY: Fix these code review findings BEFORE picking a new story. REVIEW FINDINGS (critical, 1 issues): x"},
		{"detail without a file", Findings{Severity: "LOW", IssuesFound: 1, Summary: "s", Details: []Detail{{Severity: "LOW", Issue: "vague"}}}, "REVIEW FINDINGS (LOW, 1 issues): s Details: - [LOW] vague"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, ContextFor(tc.f)); diff != "" {
				t.Fatalf("ContextFor (-want +got):\n%s", diff)
			}
		})
	}
	long := strings.Repeat("é", 400)
	longDetails := []Detail{{Severity: "LOW", File: "f", Issue: strings.Repeat("d", 400)}}
	low := ContextFor(Findings{Severity: "LOW", IssuesFound: 9, Summary: long, Details: longDetails})
	if n := len([]rune(low)); n != 493 {
		t.Fatalf("LOW context has %d characters, want 33+300+10+150", n)
	}
	capped := ContextFor(Findings{Severity: strings.Repeat("M", 100), IssuesFound: 9, Summary: long, Details: longDetails})
	if n := len([]rune(capped)); n != 500 {
		t.Fatalf("context has %d characters, want the 500 cap", n)
	}
	if !strings.Contains(low, strings.Repeat("é", 300)+" Details: ") || strings.Contains(low, strings.Repeat("é", 301)) {
		t.Fatal("summary not cut to 300 characters")
	}
	high := ContextFor(Findings{Severity: "HIGH", IssuesFound: 9, Summary: long, Details: longDetails})
	if i := strings.Index(high, " Details: "); i < 0 || len([]rune(high[i+len(" Details: "):])) != 150 {
		t.Fatalf("details not cut to 150 characters: %q", high)
	}
	if n := len([]rune(high)); n > 700 || n <= 500 {
		t.Fatalf("HIGH context has %d characters", n)
	}
}

// The shape of .review_findings.json: the agent's payload is kept as it
// wrote it, built findings are written indented, and Decode reads both.
func TestFindingsShape(t *testing.T) {
	f, err := ParseFindings([]byte(beginMarker + "\n" + payload + "\n" + endMarker))
	if err != nil {
		t.Fatal(err)
	}
	if string(f.JSON()) != payload+"\n" {
		t.Fatalf("file = %s, want the payload as the agent wrote it", f.JSON())
	}
	got, err := Decode(f.JSON())
	if err != nil || ContextFor(got) != ContextFor(f) || got.IssuesFound != 2 {
		t.Fatalf("Decode = %+v err=%v", got, err)
	}
	built := Findings{Severity: "LOW", IssuesFound: 1, Summary: "s", Details: []Detail{{Severity: "LOW", File: "f", Line: 3, Issue: "i", Suggestion: "x"}}}
	wantBuilt := "{\n  \"severity\": \"LOW\",\n  \"issues_found\": 1,\n  \"summary\": \"s\",\n  \"details\": [\n    {\n      \"severity\": \"LOW\",\n      \"file\": \"f\",\n      \"line\": 3,\n      \"issue\": \"i\",\n      \"suggestion\": \"x\"\n    }\n  ]\n}\n"
	if diff := cmp.Diff(wantBuilt, string(built.JSON())); diff != "" {
		t.Fatalf("built findings (-want +got):\n%s", diff)
	}
	if _, err := Decode([]byte("[]")); err == nil {
		t.Fatal("Decode of an array: no error")
	}
}
