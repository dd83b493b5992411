package gates

import (
	"encoding/json"
	"errors"
	"regexp"
	"strings"
	"sync"

	"github.com/ralphloop/ralph_loop/internal/clip"
)

// Gate and overall statuses as they appear in .quality_gate_results.
const (
	StatusPass = "pass"
	StatusFail = "fail"
	statusSkip = "skip"
)

// Results is the content of .ralph/.quality_gate_results, field for field
// as the bash loop writes it, so that its readers (bmalph) keep working.
type Results struct {
	Timestamp     string       `json:"timestamp"`
	LoopNumber    int          `json:"loop_number"`
	TestGate      TestGate     `json:"test_gate"`
	CustomGates   []CustomGate `json:"custom_gates"`
	OverallStatus string       `json:"overall_status"`
	Mode          string       `json:"mode"`
	// Log is where the failed commands' whole output is, relative to the
	// project (an added field; absent when every gate passed).
	Log string `json:"log,omitempty"`
}

// TestGate is the test gate's entry.
type TestGate struct {
	Status              string `json:"status"`                // pass, fail or skip
	TestsStatusReported string `json:"tests_status_reported"` // the agent's TESTS_STATUS ("" without an analysis)
	Verified            bool   `json:"verified"`              // TEST_COMMAND ran
	Output              string `json:"output"`                // its output, at most outputMax characters
}

// CustomGate is one QUALITY_GATES command's entry.
type CustomGate struct {
	Command         string `json:"command"`
	Status          string `json:"status"` // pass or fail
	ExitCode        int    `json:"exit_code"`
	Output          string `json:"output"`
	DurationSeconds int    `json:"duration_seconds"`
	TimedOut        bool   `json:"timed_out"`
}

// customFailures counts the failed QUALITY_GATES commands.
func (r *Results) customFailures() int {
	n := 0
	for _, g := range r.CustomGates {
		if g.Status == StatusFail {
			n++
		}
	}
	return n
}

// Decode reads .ralph/.quality_gate_results' JSON; a file without an
// overall_status or mode is not results.
func Decode(b []byte) (*Results, error) {
	var r Results
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, err
	}
	if r.OverallStatus == "" && r.Mode == "" {
		return nil, errors.New("no overall_status or mode")
	}
	return &r, nil
}

// feedbackOutputMax is how much of the test output the feedback quotes.
const feedbackOutputMax = 150

var ansiRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("\x1b\\[[0-9;]*[a-zA-Z]") })

// Feedback is the quality-gate part of the next loop's context: empty unless
// the gates failed in block or circuit-breaker mode. A failed test gate gives
// "TESTS FAILING: <output>. " (output without colour codes, on one line, cut
// to feedbackOutputMax characters) or "TESTS FAILING. "; failed commands
// give "QG fail: <first two words of each command>. ".
func Feedback(r *Results) string {
	if r == nil || r.OverallStatus != StatusFail || r.Mode == "" || r.Mode == ModeWarn {
		return ""
	}
	var b strings.Builder
	if r.TestGate.Status == StatusFail {
		out := ansiRe().ReplaceAllString(r.TestGate.Output, "")
		// Control characters separate words too: a NUL cannot go into
		// the agent's argv.
		out = strings.Join(strings.FieldsFunc(out, func(c rune) bool {
			return c == ' ' || c < 0x20 || c == 0x7f
		}), " ")
		if out != "" {
			b.WriteString("TESTS FAILING: " + clip.Runes(out, feedbackOutputMax) + ". ")
		} else {
			b.WriteString("TESTS FAILING. ")
		}
	}
	var failed []string
	for _, g := range r.CustomGates {
		if g.Status != StatusFail {
			continue
		}
		w := strings.Fields(g.Command)
		if len(w) > 2 {
			w = w[:2]
		}
		failed = append(failed, strings.Join(w, " "))
	}
	if len(failed) > 0 {
		b.WriteString("QG fail: " + strings.Join(failed, ", ") + ". ")
	}
	return b.String()
}
