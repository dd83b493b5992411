package analysis

import (
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

var fragments = []string{
	"\n", "\n", "\n", " ", " ", "\t", "\r", "\r\n", "a", "x", "_", "-", ":", `"`, `":`, "é", "—", "\xe2\x80", "\xff",
	"done", "Done.", "DONE", "undone", "complete", "incomplete", "completed", "finished", "unfinished",
	"all tasks complete", "project complete", "ready for review", "nothing to do", "no changes", "up to date",
	"already implemented", "implemented", "implementing", "summary", "Summary:", "running tests", "npm test",
	"bats", "combats", "pytest", "jest", "function", "class", "writing", "adding", "creating",
	"Error:", "ERROR:", "error:", "Error occurred", "]: error", "Link: error", "failed with error",
	"Exception", "exception", "EXCEPTION", "Fatal", "FATAL", "fatal", `"is_error": false`, `"error":`, `"x error y":`,
	startMarker, endMarker, "---", "RALPH_STATUS", "STATUS: COMPLETE", "STATUS: IN_PROGRESS", "EXIT_SIGNAL: true",
	"EXIT_SIGNAL: false", "EXIT_SIGNAL: True", "TASKS_COMPLETED_THIS_LOOP: 1", "TASKS_COMPLETED_THIS_LOOP: -02",
	"TESTS_STATUS: PASSING", "WORK_TYPE: TESTING", "FILES_MODIFIED: 3", "RECOMMENDATION: go on",
	"Permission denied: ", "permission denied: tool", "approval required: run", "requires approval before it can run",
	"not allowed to use tool", "<!--", " ralph:state", "ralph:state idle -->", "<!-- ralph:state idle -->",
	"<!--  ralph:state blocked-1 -->", "-->", "should I", "could you", "awaiting", "input", "waiting", "response",
	"please confirm", "What do you think?", "shall Idaho",
}

func randomText(r *rand.Rand, n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		b.WriteString(fragments[r.Intn(len(fragments))])
	}
	if r.Intn(4) == 0 {
		b.WriteString(strings.Repeat("y", r.Intn(400)))
	}
	return b.String()
}

// scanPieces runs a scanner over text cut into random pieces.
func scanPieces(text string, r *rand.Rand) *Facts {
	s := newText(1 << 20)
	for len(text) > 0 {
		n := 1 + r.Intn(40)
		if r.Intn(3) == 0 {
			n = 1 + r.Intn(3)
		}
		n = min(n, len(text))
		s.Write([]byte(text[:n]))
		text = text[n:]
	}
	return s.Finish()
}

func compareFacts(t *testing.T, text string, got, want *Facts) {
	t.Helper()
	opts := cmp.Options{
		cmpopts.IgnoreFields(Facts{}, "Text", "Truncated", "LastLines"),
		cmpopts.EquateEmpty(),
	}
	if diff := cmp.Diff(want, got, opts); diff != "" {
		t.Fatalf("text %q:\n(-naive +stream)\n%s", text, diff)
	}
}

func TestTextScanMatchesNaive(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewSource(1))
	for i := 0; i < 3000; i++ {
		text := randomText(r, 1+r.Intn(60))
		want := naiveFacts(text)
		compareFacts(t, text, scanString(text, 0), want)
		compareFacts(t, text, scanPieces(text, r), want)
	}
}

func FuzzStatusBlock(f *testing.F) {
	for _, s := range fragments {
		f.Add(s)
	}
	f.Add("x\n---RALPH_STATUS---\nSTATUS: COMPLETE\nEXIT_SIGNAL: false\n---END_RALPH_STATUS---\n---RALPH_STATUS---EXIT_SIGNAL: true")
	f.Add("---RALPH_STATUS---END_RALPH_STATUS---")
	f.Add("<!-- ralph:state idle -->")
	seedText := func(pat string) {
		files, _ := filepath.Glob(filepath.Join("testdata", "*", pat))
		for _, file := range files {
			b, _ := os.ReadFile(file)
			f.Add(string(b))
		}
	}
	seedText("*.txt")
	f.Fuzz(func(t *testing.T, text string) {
		want := naiveFacts(text)
		compareFacts(t, text, scanString(text, 0), want)
		compareFacts(t, text, scanPieces(text, rand.New(rand.NewSource(int64(len(text))))), want)
	})
}

// scan tests every other offset for three bytes of a phrase at its offset
// 0 or 1, which finds a phrase of four bytes or more wherever it starts;
// only the quotes, looked for by themselves, may be shorter.
func TestPhrasesLongEnoughForTheScan(t *testing.T) {
	t.Parallel()
	for _, p := range patterns {
		if len(p.text) < 4 && p.text[0] != '"' {
			t.Errorf("phrase %q is shorter than 4 bytes: scan would miss it at odd offsets", p.text)
		}
	}
	for _, text := range []string{"xdone", "done", "x\"y\":", "Xfinished."} {
		if got, want := scanString(text, 0), naiveFacts(text); got.Keywords != want.Keywords {
			t.Errorf("%q: keywords %v, want %v", text, got.Keywords, want.Keywords)
		}
	}
}
