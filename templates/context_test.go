package templates

import (
	"flag"
	"github.com/ralphloop/ralph_loop/internal/clip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

func golden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./templates -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Fatalf("%s (-want +got):\n%s", path, diff)
	}
}

const statusBlock = "\n---RALPH_STATUS---\nSTATUS: IN_PROGRESS\nTASKS_COMPLETED_THIS_LOOP: 1\nFILES_MODIFIED: 1\nTESTS_STATUS: PASSING\nWORK_TYPE: IMPLEMENTATION\nEXIT_SIGNAL: false\nRECOMMENDATION: keep going\n---END_RALPH_STATUS---"

func TestLoopContextGolden(t *testing.T) {
	longTask := "- [ ] Refactor the authentication middleware to properly validate JWT tokens and handle refresh token rotation"[:100]
	tests := []struct {
		name string
		in   ContextInput
	}{
		{"first-loop", ContextInput{Loop: 1, HaveFixPlan: true, Remaining: 2, NextTask: "- [ ] Task A"}},
		{"no-fix-plan", ContextInput{Loop: 3}},
		{"empty-fix-plan", ContextInput{Loop: 3, HaveFixPlan: true}},
		{"loop-two", ContextInput{Loop: 2, SessionResumed: true, HaveFixPlan: true, Remaining: 1, NextTask: "- [ ] Task B",
			PreviousSummary: "Implemented Task A with tests." + statusBlock, DiffSummary: "Changed: src/app.txt (+1/-0)"}},
		{"breaker-half-open", ContextInput{Loop: 4, HaveFixPlan: true, Remaining: 1, NextTask: "- [ ] Story 2.1: Dashboard", BreakerState: "HALF_OPEN"}},
		{"quality-gates", ContextInput{Loop: 5, HaveFixPlan: true, Remaining: 3, NextTask: "- [ ] Story 1.2: Login",
			QualityGateFeedback: "TESTS FAILING: TypeError: Cannot read property user. QG fail: npm run. ",
			DiffSummary:         "Changed: " + strings.Repeat("a_very_long_filename_that_takes_space.ts (+100/-50), ", 3)}},
		{"budget-pressure", ContextInput{Loop: 5, SessionResumed: true, HaveFixPlan: true, Remaining: 2, NextTask: longTask,
			PreviousSummary:     "Implemented authentication flow with JWT token validation and refresh logic for the user session management module across multiple service endpoints and then some more words to pass two hundred characters",
			QualityGateFeedback: "TESTS FAILING: FAIL auth.test.ts:42 TypeError. QG fail: npm run. ",
			DiffSummary:         "Changed: src/auth/middleware.ts (+120/-40), src/auth/session.ts (+80/-12), tests/auth.test.ts (+200/-0), docs/auth.md (+30/-2), src/a...",
		}},
		{"held-plan", ContextInput{Loop: 4, HaveFixPlan: true, Remaining: 0, QualityGateFeedback: "TESTS FAILING: ok  \tapp\t0.1s. ",
			Held: &Held{PlanDone: 2, PlanTotal: 2, Gate: "TEST_COMMAND", Command: "go test ./...", ExitCode: 1,
				Tail: "--- FAIL: TestLogin (0.00s)\n    login_test.go:12: got 401, want 200\nFAIL\nFAIL\tapp\t0.1s"}}},
		{"held-signal-timeout", ContextInput{Loop: 4, LoopStateOff: true,
			Held: &Held{Gate: "QUALITY_GATES", Command: "npm run lint", TimedOut: true, More: 1, Tail: strings.Repeat("x", 500) + " last words"}}},
		{"held-reported", ContextInput{Loop: 4, HaveFixPlan: true, Held: &Held{PlanDone: 1, PlanTotal: 1, Gate: "TESTS_STATUS"}}},
		{"review-priority", ContextInput{Loop: 6, SessionResumed: true, HaveFixPlan: true, Remaining: 1, NextTask: "- [ ] Story 3.1: Export",
			ReviewContext: "PRIORITY: Fix these code review findings BEFORE picking a new story. REVIEW FINDINGS (HIGH, 1 issues): SQL built from input. Details: - [HIGH] src/db.ts: string concatenation in query"}},
		{"write-timeout", ContextInput{Loop: 7, HaveFixPlan: true, Remaining: 1, NextTask: "- [ ] Task C", WriteTimedOut: true}},
		{"no-continue-with-review", ContextInput{Loop: 8, HaveFixPlan: true, Remaining: 1, LoopStateOff: true,
			ReviewContext: "REVIEW FINDINGS (LOW, 1 issues): naming.", WriteTimedOut: true}},
		{"no-continue-plain", ContextInput{Loop: 8, HaveFixPlan: true, Remaining: 1, NextTask: "- [ ] Task C", LoopStateOff: true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := LoopContext(tc.in)
			golden(t, filepath.Join("testdata", "context", tc.name+".golden"), got)
		})
	}
}

func TestLoopContextConformancePhrases(t *testing.T) {
	// driver-claude-argv and CTX1_TWO_TASKS: exact first-loop contexts.
	if got := LoopContext(ContextInput{Loop: 1, HaveFixPlan: true, Remaining: 1, NextTask: "- [ ] Task A"}); got != "Loop #1. Remaining tasks: 1. Next: - [ ] Task A. " {
		t.Fatalf("first loop = %q", got)
	}
	if got := LoopContext(ContextInput{Loop: 1, HaveFixPlan: true, Remaining: 2, NextTask: "- [ ] Task A"}); got != "Loop #1. Remaining tasks: 2. Next: - [ ] Task A. " {
		t.Fatalf("two tasks = %q", got)
	}
	// driver-claude-loop2-context and driver-claude-diff-summary-context
	c2 := LoopContext(ContextInput{Loop: 2, SessionResumed: true, HaveFixPlan: true, Remaining: 1, NextTask: "- [ ] Task B",
		PreviousSummary: "Implemented Task A with tests." + statusBlock,
		DiffSummary:     DiffSummary("1\t0\tsrc/app.txt\n")})
	if !strings.HasPrefix(c2, "Loop #2. ") {
		t.Fatalf("loop 2 context = %q", c2)
	}
	for _, want := range []string{"Session continued", "Remaining tasks: 1.", "Next: - [ ] Task B.", "Previous: Implemented Task A with tests.", "Changed: ", "src/app.txt (+1/-0)"} {
		if !strings.Contains(c2, want) {
			t.Errorf("loop 2 context lacks %q: %q", want, c2)
		}
	}
	if utf8.RuneCountInString(c2) > 500 {
		t.Errorf("loop 2 context has %d characters", utf8.RuneCountInString(c2))
	}
}

func TestLoopContextCaps(t *testing.T) {
	in := ContextInput{Loop: 12345, SessionResumed: true, HaveFixPlan: true, Remaining: 40, NextTask: strings.Repeat("ü", 100),
		BreakerState: "HALF_OPEN", PreviousSummary: strings.Repeat("word ", 100),
		QualityGateFeedback: "TESTS FAILING: " + strings.Repeat("x", 150) + ". QG fail: lint. ",
		DiffSummary:         strings.Repeat("d", 200)}
	got := LoopContext(in)
	if n := utf8.RuneCountInString(got); n != contextMax {
		t.Fatalf("context has %d characters, want the %d cap", n, contextMax)
	}
	if !utf8.ValidString(got) {
		t.Fatal("cut inside a character")
	}
	if !strings.Contains(got, "Previous: "+strings.TrimSpace(strings.Repeat("word ", 40))+". ") {
		t.Fatalf("previous summary not cut to 200 characters: %q", got)
	}
	// review text and the timeout notice come on top of the capped loop part
	in.ReviewContext = strings.Repeat("r", 700)
	in.WriteTimedOut = true
	got = LoopContext(in)
	// loop part, a separating space, the review text and its space, the notice
	if want := contextMax + 1 + 700 + 1 + len(writeTimeoutNotice); utf8.RuneCountInString(got) != want {
		t.Fatalf("with review and notice: %d characters, want %d", utf8.RuneCountInString(got), want)
	}
	// the diff summary itself is quoted with at most 150 characters
	d := LoopContext(ContextInput{Loop: 1, DiffSummary: strings.Repeat("d", 200)})
	if d != "Loop #1. "+strings.Repeat("d", 150)+". " {
		t.Fatalf("diff summary cap: %q", d)
	}
}

func TestPrevious(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"null", ""},
		{"Did X.\n\nThen Y.", "Did X. Then Y"},
		{"Did X." + statusBlock, "Did X"},
		{"Before" + statusBlock + "\nAfter text", "Before After text"},
		{"Open block\n---RALPH_STATUS---\nSTATUS: COMPLETE", "Open block"},
		{statusBlock, ""},
	}
	for _, tc := range tests {
		if got := previous(tc.in); got != tc.want {
			t.Errorf("previous(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestDiffSummary(t *testing.T) {
	long := ""
	for i := 0; i < 10; i++ {
		long += "5\t1\tsrc/module_" + strings.Repeat("x", 10) + string(rune('a'+i)) + ".go\n"
	}
	tests := []struct {
		name, numstat, want string
	}{
		{"nothing", "", ""},
		{"one file", "1\t0\tsrc/app.txt\n", "Changed: src/app.txt (+1/-0)"},
		{"committed and working tree deduplicated, first row wins", "10\t2\tsrc/auth.ts\n3\t0\tREADME.md\n1\t1\tsrc/auth.ts\n", "Changed: src/auth.ts (+10/-2), README.md (+3/-0)"},
		{"binary only", "-\t-\tlogo.png\n", ""},
		{"binary next to text", "-\t-\tlogo.png\n4\t4\tmain.go\n", "Changed: main.go (+4/-4)"},
		{"binary first hides a later text row of the same path", "-\t-\tx.bin\n1\t0\tx.bin\n", ""},
		{"spaces in names", "2\t0\tdocs/my notes.md\n", "Changed: docs/my notes.md (+2/-0)"},
		{"rename notation", "0\t0\tsrc/{old.go => new.go}\n", "Changed: src/{old.go => new.go} (+0/-0)"},
		{"malformed rows skipped", "garbage\n\n1\t2\n\tx\ty\n7\t0\tok.txt\r\n", "Changed: ok.txt (+7/-0)"},
		{"cut to 144 + ...", long, clip.Runes("Changed: "+strings.Join(func() []string {
			var s []string
			for i := 0; i < 10; i++ {
				s = append(s, "src/module_"+strings.Repeat("x", 10)+string(rune('a'+i))+".go (+5/-1)")
			}
			return s
		}(), ", "), 144) + "..."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := DiffSummary(tc.numstat)
			if got != tc.want {
				t.Fatalf("DiffSummary = %q, want %q", got, tc.want)
			}
			if utf8.RuneCountInString(got) > diffSummaryLimit {
				t.Fatalf("%d characters", utf8.RuneCountInString(got))
			}
		})
	}
	exact := "Changed: " + strings.Repeat("a", 138-len(" (+1/-0)")) + " (+1/-0)"
	if utf8.RuneCountInString(exact) != 147 || DiffSummary("1\t0\t"+strings.Repeat("a", 130)+"\n") != exact {
		t.Fatalf("a 147-character summary must not be cut: %q", DiffSummary("1\t0\t"+strings.Repeat("a", 130)+"\n"))
	}
}

// A ticked task whose check failed is named to the next call, with the
// check's output tail, after the loop part.
func TestTaskCheckNotice(t *testing.T) {
	got := LoopContext(ContextInput{Loop: 3, LoopStateOff: true, TaskChecks: []TaskCheck{
		{Task: "Task A", Command: "make check", ExitCode: 2, Tail: "FAIL: TestA\n  want 1, got 2"},
		{Task: "Task B", Command: "make check", TimedOut: true},
	}})
	want := "CHECK FAILED: you ticked \"Task A\", but its check VERIFY_COMMAND `make check` fails (exit 2) (and the checks of 1 more ticked tasks fail), so it is open again: make the check pass, then tick it. Its output ends: FAIL: TestA want 1, got 2 "
	if got != want {
		t.Errorf("LoopContext:\n got %q\nwant %q", got, want)
	}
}
