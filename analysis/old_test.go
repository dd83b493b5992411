package analysis

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ralphloop/ralph_loop/analysis/internal/oldanalysis"
	"github.com/ralphloop/ralph_loop/internal/gen"
)

// TestMatchesOldAnalyser: the one reading gives what the analyser before
// it gave, on every fixture, every fuzz corpus entry and generated outputs
// of each format, for every agent CLI and ending.
func TestMatchesOldAnalyser(t *testing.T) {
	inputs := map[string][]byte{}
	for _, pat := range []string{"testdata/*/*", sharedFixtures + "/*"} {
		files, _ := filepath.Glob(pat)
		for _, f := range files {
			if strings.HasSuffix(f, ".md") {
				continue
			}
			if b, err := os.ReadFile(f); err == nil {
				inputs[f] = b
			}
		}
	}
	corpus, _ := filepath.Glob("testdata/fuzz/*/*")
	for _, f := range corpus {
		b, _ := os.ReadFile(f)
		lines := strings.Split(string(b), "\n")
		if len(lines) < 2 {
			continue
		}
		v := strings.TrimSpace(lines[1])
		v = strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(v, "[]byte("), "string("), ")")
		if s, err := strconv.Unquote(v); err == nil {
			inputs[f] = []byte(s)
		}
	}
	for _, format := range gen.Formats {
		var buf bytes.Buffer
		if err := gen.Write(&buf, format, 300<<10, 3); err != nil {
			t.Fatal(err)
		}
		inputs["gen-"+format] = buf.Bytes()
		b := buf.Bytes()
		inputs["cut-"+format] = append(append(append([]byte(nil), b[:len(b)/3]...), "\n[... 12345 bytes omitted ...]\n"...), b[2*len(b)/3:]...)
	}
	inputs["bom-json"] = []byte("\xef\xbb\xbf {\"result\":\"done\",\"session_id\":\"s1\"}\n")
	// Not compared: an output that starts like JSON and is read as text
	// ("{...}\nError: one\n..."): the old reading's text held its JSON
	// lines too, the one reading's holds the lines that are not JSON (the
	// same decisions, a shorter result text).
	if len(inputs) < 50 {
		t.Fatalf("only %d inputs", len(inputs))
	}
	now := time.Date(2026, 11, 24, 23, 30, 0, 0, time.UTC)
	fams := map[Family]string{FamilyAny: "", FamilyClaude: "claude-code", FamilyCodex: "codex", FamilyCursor: "cursor",
		FamilyOpenCode: "opencode", FamilyText: "copilot"}
	differ := 0
	reported := map[string]bool{}
	for name, data := range inputs {
		for fam, driver := range fams {
			for _, e := range streamEndings {
				opts := Options{Family: fam, Loop: 3, OutputFile: "out.log", Now: now, ExitCode: e.ExitCode, TimedOut: e.TimedOut,
					PreviousOutputLength: 4000, PreviousErrors: [][]string{{"Error: one"}}, FilesModified: 1}
				res, err := Analyze(bytes.NewReader(data), opts)
				if err != nil {
					t.Fatal(err)
				}
				old, err := oldanalysis.Analyze(bytes.NewReader(data), oldanalysis.Options{Driver: driver, Loop: 3, OutputFile: "out.log",
					Now: now, ExitCode: e.ExitCode, TimedOut: e.TimedOut, PreviousOutputLength: 4000,
					PreviousErrors: [][]string{{"Error: one"}}, FilesModified: 1})
				if err != nil {
					t.Fatal(err)
				}
				got, _ := res.ResponseAnalysis().Marshal()
				want, _ := old.ResponseAnalysis().Marshal()
				gv := []any{string(got), res.ResultText, res.SessionID, res.UsageLimited, res.UsageLimitReason, res.ErrorLines, res.States, res.Documents, res.InvalidLines}
				ov := []any{string(want), old.ResultText, old.SessionID, old.UsageLimited, old.UsageLimitReason, old.ErrorLines, old.States, old.Documents, old.InvalidLines}
				if diff := cmp.Diff(ov, gv); diff != "" {
					differ++
					if !reported[name] {
						reported[name] = true
						t.Errorf("%s (family %q, ending %+v) differs (-old +new):\n%s", name, fam, e, diff)
					}
				}
			}
		}
	}
	if differ > 0 {
		t.Errorf("%d of %d readings differ", differ, len(inputs)*len(fams)*len(streamEndings))
	}
}
