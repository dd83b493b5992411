package analysis_test

import (
	. "github.com/ralphloop/ralph_loop/analysis"
	"github.com/ralphloop/ralph_loop/drivers"

	"path/filepath"
	"regexp"
	"testing"
	"time"
)

// The analysis time of the fixtures: 2026-02-18 01:00 UTC, four hours
// before the reset most of them give (05:00 UTC, 1771390800).
var usageNow = time.Date(2026, 2, 18, 1, 0, 0, 0, time.UTC)

func pct(f float64) *float64 { return &f }

// Each shape a CLI reports usage in gives the window, its status, the
// reset time and the used percent, from the file as --analyze reads it.
func TestUsageFixtures(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		file    string
		driver  string
		exit    int
		limited bool
		window  string // the limited window, or the first window reported
		status  string
		reset   int64
		percent *float64
		windows int
	}{
		{"claude_stream_allowed_warning.jsonl", "claude-code", 0, false, "seven_day", LimitWarning, 1771390800, pct(82), 1},
		{"claude_stream_rejected.jsonl", "claude-code", 1, true, "five_hour", LimitRejected, 1771390800, nil, 1},
		{"claude_json_error_text.json", "claude-code", 1, true, "five_hour", LimitRejected, time.Date(2026, 2, 18, 2, 0, 0, 0, time.UTC).Unix(), nil, 0},
		{"codex_usage_limit_reached.jsonl", "codex", 1, true, "", LimitRejected, 1771390800, nil, 0},
		{"codex_rate_limit_snapshot.jsonl", "codex", 0, false, "primary", LimitAllowed, 1771390800, pct(92), 2},
		{"copilot_text_limit.txt", "copilot", 1, true, "", LimitRejected, usageNow.Add(3 * time.Hour).Unix(), nil, 0},
		{"opencode_error_limit.jsonl", "opencode", 1, true, "five_hour", LimitRejected, usageNow.Add(90 * time.Minute).Unix(), nil, 0},
	} {
		t.Run(tc.file, func(t *testing.T) {
			res, _, err := AnalyzeFile(filepath.Join("testdata", "usage", tc.file), Options{Formats: drivers.Formats(tc.driver), ExitCode: tc.exit, Now: usageNow})
			if err != nil {
				t.Fatal(err)
			}
			if res.UsageLimited != tc.limited {
				t.Fatalf("limited = %v (%q), want %v", res.UsageLimited, res.UsageLimitReason, tc.limited)
			}
			if len(res.UsageWindows) != tc.windows {
				t.Errorf("windows = %+v, want %d", res.UsageWindows, tc.windows)
			}
			w := res.Limit()
			if !tc.limited {
				w = res.UsageWindows[0]
			}
			if w.Window != tc.window || w.Status != tc.status || w.ResetsAt != tc.reset {
				t.Errorf("window %q %q resets %d, want %q %q %d", w.Window, w.Status, w.ResetsAt, tc.window, tc.status, tc.reset)
			}
			switch {
			case (w.UsedPercent == nil) != (tc.percent == nil):
				t.Errorf("used percent %v, want %v", w.UsedPercent, tc.percent)
			case w.UsedPercent != nil && *w.UsedPercent != *tc.percent:
				t.Errorf("used percent %v, want %v", *w.UsedPercent, *tc.percent)
			}
		})
	}
}

// A file the agent read that tells of a usage limit is a tool result, not
// the agent's text: a failed call that echoed it is no limit.
func TestUsageToolResultIsNoLimit(t *testing.T) {
	t.Parallel()
	res, _, err := AnalyzeFile(filepath.Join("testdata", "usage", "claude_stream_tool_result_echo.jsonl"), Options{Formats: drivers.Formats("claude-code"), ExitCode: 1, Now: usageNow})
	if err != nil {
		t.Fatal(err)
	}
	if res.UsageLimited {
		t.Errorf("an echoed file counted as a limit: %q", res.UsageLimitReason)
	}
}

// USAGE_LIMIT_PATTERNS add phrases, read where the built-in ones are: the
// agent's text of a failed call and the CLI's errors.
func TestUsageLimitPatterns(t *testing.T) {
	t.Parallel()
	pats := []*regexp.Regexp{regexp.MustCompile(`(?i)credits? exhausted`)}
	out := "Working...\nError: credits exhausted for this billing period\n"
	if res := analyzeString(t, out, Options{Formats: drivers.Formats(""), ExitCode: 1}); res.UsageLimited {
		t.Fatalf("without the pattern: limited (%q)", res.UsageLimitReason)
	}
	res := analyzeString(t, out, Options{Formats: drivers.Formats(""), ExitCode: 1, LimitPatterns: pats})
	if !res.UsageLimited || res.UsageLimitReason != "agent said: Error: credits exhausted for this billing period" {
		t.Errorf("with the pattern: %v %q", res.UsageLimited, res.UsageLimitReason)
	}
	if res := analyzeString(t, out, Options{Formats: drivers.Formats(""), ExitCode: 0, LimitPatterns: pats}); res.UsageLimited {
		t.Errorf("a successful call matched a pattern: %q", res.UsageLimitReason)
	}
	codex := `{"type":"thread.started","thread_id":"t1"}
{"type":"turn.failed","error":{"message":"Credit exhausted, come back later"}}
`
	res = analyzeString(t, codex, Options{Formats: drivers.Formats("codex"), ExitCode: 1, LimitPatterns: pats})
	if !res.UsageLimited {
		t.Errorf("a CLI error matching a pattern is a limit")
	}
}

// Codex snapshots are read in each nesting a version used: the event
// itself, the older exec --json's "msg", the session log's "payload"; the
// older relative reset (resets_in_seconds) counts from the analysis time.
func TestCodexSnapshotShapes(t *testing.T) {
	t.Parallel()
	head := `{"type":"thread.started","thread_id":"t1"}` + "\n"
	tail := `{"type":"item.completed","item":{"id":"i","type":"agent_message","text":"ok"}}` + "\n"
	for name, line := range map[string]string{
		"event":   `{"type":"token_count","rate_limits":{"primary":{"used_percent":100,"window_minutes":300,"resets_in_seconds":600}}}`,
		"msg":     `{"id":"1","msg":{"type":"token_count","rate_limits":{"primary":{"used_percent":100,"window_minutes":300,"resets_in_seconds":600}}}}`,
		"payload": `{"type":"event_msg","payload":{"type":"token_count","rate_limits":{"primary":{"used_percent":100,"window_minutes":300,"resets_in_seconds":600}}}}`,
		"flat":    `{"id":"1","msg":{"type":"token_count","rate_limits":{"primary_used_percent":100,"primary_window_minutes":300,"secondary_used_percent":3}}}`,
	} {
		t.Run(name, func(t *testing.T) {
			res := analyzeString(t, head+line+"\n"+tail, Options{Formats: drivers.Formats("codex"), Now: usageNow})
			if !res.UsageLimited || res.UsageLimitWindow != "primary" {
				t.Fatalf("limited %v in %q (%q)", res.UsageLimited, res.UsageLimitWindow, res.UsageLimitReason)
			}
			w := res.Limit()
			if w.WindowMinutes != 300 || *w.UsedPercent != 100 {
				t.Errorf("window %+v", w)
			}
			if name != "flat" && w.ResetsAt != usageNow.Unix()+600 {
				t.Errorf("reset %d, want now + 600 s", w.ResetsAt)
			}
		})
	}
}

// TestIfFailed: a limit only the agent's text tells of is not one for a
// successful call, and is one for the same output had the call failed,
// from one reading.
func TestIfFailed(t *testing.T) {
	t.Parallel()
	res, _, err := AnalyzeFile(filepath.Join("testdata", "extra", "text_usage_limit.txt"), Options{Formats: drivers.Formats("copilot")})
	if err != nil {
		t.Fatal(err)
	}
	failed, _, err := AnalyzeFile(filepath.Join("testdata", "extra", "text_usage_limit.txt"), Options{Formats: drivers.Formats("copilot"), ExitCode: 1})
	if err != nil {
		t.Fatal(err)
	}
	if res.UsageLimited || !failed.UsageLimited {
		t.Fatalf("limited: success %v, failed %v; want false, true", res.UsageLimited, failed.UsageLimited)
	}
	got := res.IfFailed()
	if got.UsageLimitReason != failed.UsageLimitReason || got.UsageLimitWindow != failed.UsageLimitWindow || !got.UsageLimited {
		t.Errorf("IfFailed: %v %q %q; want %q %q", got.UsageLimited, got.UsageLimitReason, got.UsageLimitWindow, failed.UsageLimitReason, failed.UsageLimitWindow)
	}
}
