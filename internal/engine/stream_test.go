//go:build linux

package engine

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ralphloop/ralph_loop/analysis"
	"github.com/ralphloop/ralph_loop/drivers"
	"github.com/ralphloop/ralph_loop/internal/config"
	"github.com/ralphloop/ralph_loop/internal/ralphdir"
)

// streamReply is a Claude stream-json output of about size bytes: an init
// record, assistant messages, then the result record of claudeReply.
func streamReply(n, size int) string {
	var b strings.Builder
	b.WriteString(`{"type":"system","subtype":"init","session_id":"init-sess"}` + "\n")
	for b.Len() < size {
		b.WriteString(`{"type":"assistant","message":{"content":[{"type":"text","text":"Still working on it, step by step."}]}}` + "\n")
	}
	b.WriteString(claudeReply(n, 0.02, 30, 40, 0, 0))
	return b.String()
}

// analysedView is what the loop keeps of a call's analysis in
// .response_analysis that depends on the output alone.
func analysedView(t *testing.T, data []byte) map[string]any {
	t.Helper()
	var ra struct {
		OutputFormat string         `json:"output_format"`
		Analysis     map[string]any `json:"analysis"`
	}
	if err := json.Unmarshal(data, &ra); err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	v := map[string]any{"output_format": ra.OutputFormat}
	for _, k := range []string{"output_length", "session_id", "work_summary", "exit_signal", "format_confidence", "input_tokens", "output_tokens", "total_cost_usd", "tests_status", "has_errors"} {
		v[k] = ra.Analysis[k]
	}
	return v
}

// TestAnalysisSeesTheLog: the analysis fed while the output log is written
// decides as a reading of the finished log would, when the log keeps only
// head and tail (MAX_OUTPUT_MB) and when a live call's log is cut down to
// its result record.
func TestAnalysisSeesTheLog(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		settle func(*config.Config)
		check  func(t *testing.T, log []byte)
	}{
		{
			name:   "head and tail",
			settle: func(s *config.Config) { s.MaxOutput = 4 << 10 },
			check: func(t *testing.T, log []byte) {
				if !strings.Contains(string(log), " bytes omitted ...]") {
					t.Fatalf("the output log was not cut to head and tail:\n%s", log)
				}
			},
		},
		{
			name: "cut down to the result",
			settle: func(s *config.Config) {
				s.Live, s.SessionContinuity, s.Driver = true, true, "claude-code"
			},
			check: func(t *testing.T, log []byte) {
				if strings.Count(string(log), "\n") != 1 || !strings.Contains(string(log), `"type":"result"`) {
					t.Fatalf("the output log was not cut down to its result record:\n%s", log)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := newObsRun(t)
			seen := 0
			r.reply = func(n int) string {
				if n > 1 {
					// .response_analysis of the previous call is there now.
					checkAnalysedLog(t, r.dir, n-1, tt.check)
					seen++
				}
				return streamReply(n, 20<<10)
			}
			r.settle = func(s *config.Config) {
				s.MaxLoops = 2
				tt.settle(s)
			}
			r.run()
			if seen != 1 {
				t.Fatalf("%d analyses checked, want 1 (exit %d: %s)", seen, r.res.Code, r.res.Stop.Sentence())
			}
		})
	}
}

// checkAnalysedLog compares loop n's .response_analysis with analyzeLog
// on its output log.
func checkAnalysedLog(t *testing.T, d *ralphdir.Dir, n int, check func(*testing.T, []byte)) {
	t.Helper()
	logs, _ := filepath.Glob(filepath.Join(d.Path(ralphdir.LogsDir), "claude_output_*_loop"+string(rune('0'+n))+".log"))
	if len(logs) != 1 {
		t.Fatalf("output logs of loop %d: %q", n, logs)
	}
	log, err := os.ReadFile(logs[0])
	if err != nil {
		t.Fatal(err)
	}
	check(t, log)
	got, found, err := d.ReadFile(ralphdir.ResponseAnalysis)
	if err != nil || !found {
		t.Fatalf(".response_analysis: found %v, %v", found, err)
	}
	res, err := analyzeLog(logs[0], analysis.Options{Formats: drivers.Formats("claude-code"), Loop: n})
	if err != nil {
		t.Fatal(err)
	}
	want, err := res.ResponseAnalysis().Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(analysedView(t, want), analysedView(t, got)); diff != "" {
		t.Errorf("loop %d: .response_analysis differs from a reading of the log (-log +loop):\n%s", n, diff)
	}
}

// TestReviewReadFromItsWrites: a review call's cost counts and its
// findings are kept, both taken from the writes of its log, which is
// opened once, for writing (the review is stream-json here, its findings
// in the result record).
func TestReviewReadFromItsWrites(t *testing.T) {
	t.Parallel()
	r := newObsRun(t)
	if err := os.WriteFile(r.dir.Path(ralphdir.ReviewPrompt), []byte("# Code Review Loop\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	findings := "Reviewed.\n---REVIEW_FINDINGS---\n{\"severity\":\"HIGH\",\"issues_found\":1,\"summary\":\"Off-by-one\",\"details\":[]}\n---END_REVIEW_FINDINGS---"
	var kept []byte
	r.reply = func(n int) string {
		if n == 3 { // loop 2, handed the review's findings
			kept, _, _ = r.dir.ReadFile(".review_findings.json")
		}
		if n == 2 { // the review, after loop 1
			b, _ := json.Marshal(map[string]any{"type": "result", "result": findings, "total_cost_usd": 0.5, "session_id": "review"})
			return `{"type":"system","subtype":"init","session_id":"review"}` + "\n" + string(b) + "\n"
		}
		return claudeReply(n, 0.25, 10, 10, 0, 0)
	}
	r.settle = func(s *config.Config) {
		s.MaxLoops, s.ReviewMode, s.ReviewInterval = 2, "enhanced", 1
	}
	w := watchOpens(t, r.dir.Path(ralphdir.LogsDir))
	r.run()
	w.drain(t)
	if p := r.dir.Path("logs/review_loop_1.log"); w.opens[p] != 1 || w.write[p] != 1 {
		t.Errorf("review log: %d opens, %d for writing; want one, for writing", w.opens[p], w.write[p])
	}
	if r.calls < 3 {
		t.Fatalf("%d calls, want a review after loop 1 (exit %d: %s)", r.calls, r.res.Code, r.res.Stop.Sentence())
	}
	if st := r.status(); st.CostUSD < 0.5 {
		t.Errorf("cost_usd_total = %v: the review's 0.5 was not counted", st.CostUSD)
	}
	if !strings.Contains(string(kept), "Off-by-one") {
		t.Errorf(".review_findings.json at loop 2: %q", kept)
	}
}
