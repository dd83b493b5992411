package analysis_test

import (
	. "github.com/ralphloop/ralph_loop/analysis"
	"github.com/ralphloop/ralph_loop/drivers"

	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
)

// extraWant lists the values checked for the hand-made fixtures in
// testdata/extra (today's real CLI shapes and edge cases).
type extraWant struct {
	Format        Format
	Session       string
	Exit          bool
	Completion    bool
	TextPrefix    string
	TextSuffix    string
	Tasks         int
	Tests         string
	BlockCount    int
	HasErrors     bool
	IsError       bool
	ErrorLines    int
	Denials       []string
	Limited       bool
	LimitReason   string
	ResetsAt      int64
	Usage         *Usage
	Invalid       int
	Docs          int
	States        []string
	Keyword       string
	OutputFormat  string
	FormatConf    int
	Confidence    int
	WorkSumPrefix string
}

func projectExtra(r *Result, w extraWant) extraWant {
	g := extraWant{
		Format: r.Format, Session: r.SessionID, Exit: r.ExitSignal, Completion: r.HasCompletionSignal,
		Tasks: r.TasksCompletedThisLoop, Tests: r.TestsStatus, BlockCount: r.BlockCount,
		HasErrors: r.HasErrors, IsError: r.IsError, ErrorLines: r.ErrorCount, Denials: r.DeniedCommands,
		Limited: r.UsageLimited, LimitReason: r.UsageLimitReason, ResetsAt: r.UsageLimitResetsAt,
		Usage: r.Usage, Invalid: r.InvalidLines, Docs: r.Documents, States: r.States,
		Keyword: r.CompletionKeyword, OutputFormat: r.OutputFormat, FormatConf: r.FormatConfidence,
		Confidence: r.ConfidenceScore,
	}
	if strings.HasPrefix(r.ResultText, w.TextPrefix) {
		g.TextPrefix = w.TextPrefix
	} else {
		g.TextPrefix = r.ResultText
	}
	if strings.HasSuffix(r.ResultText, w.TextSuffix) {
		g.TextSuffix = w.TextSuffix
	} else {
		g.TextSuffix = r.ResultText
	}
	if strings.HasPrefix(r.WorkSummary, w.WorkSumPrefix) {
		g.WorkSumPrefix = w.WorkSumPrefix
	} else {
		g.WorkSumPrefix = r.WorkSummary
	}
	if len(g.Denials) == 0 {
		g.Denials = nil
	}
	return g
}

const claudeSID = "8129eebb-0f2f-4067-af9c-d189154b6617"

var extraCases = []struct {
	file string
	opts Options
	want extraWant
}{
	{"claude_result_error.json", Options{Formats: drivers.Formats("")}, extraWant{
		Format: FormatJSONObject, OutputFormat: "json", Session: claudeSID, HasErrors: true, IsError: true,
		Tests: "UNKNOWN", Docs: 1, FormatConf: 80, // no "result" key
		Usage: &Usage{InputTokens: 10, CostUSD: 0.0021},
	}},
	{"claude_stream.jsonl", Options{Formats: drivers.Formats("claude-code")}, extraWant{
		// The tool result's errors, denial text and echoed EXIT_SIGNAL: true
		// are not the agent's own text; EXIT_SIGNAL: false beats "done".
		Format: FormatStreamJSON, OutputFormat: "json", Session: claudeSID, TextPrefix: "All done: the login form",
		Tasks: 1, Tests: "PASSING", BlockCount: 1, Docs: 13, FormatConf: 100, WorkSumPrefix: "All done",
		Usage: &Usage{InputTokens: 1200, OutputTokens: 340, CacheReadTokens: 9000, CacheCreationTokens: 150, CostUSD: 0.1234},
	}},
	{"claude_stream_truncated.jsonl", Options{Formats: drivers.Formats("")}, extraWant{
		// No result event: the assistant text, then the unfinished
		// message's deltas; the cut last line is skipped.
		Format: FormatStreamJSON, OutputFormat: "json", Session: claudeSID, TextPrefix: "Let me look at the form.\nStill working on the validation.",
		Tests: "UNKNOWN", Docs: 11, Invalid: 1, FormatConf: 100,
	}},
	{"claude_stream_rate_limited.jsonl", Options{Formats: drivers.Formats(""), ExitCode: 1}, extraWant{
		Format: FormatStreamJSON, OutputFormat: "json", Session: claudeSID, TextPrefix: "You've hit your session limit",
		Tests: "UNKNOWN", Docs: 3, IsError: true, HasErrors: true, Limited: true, FormatConf: 100,
		LimitReason: "rate_limit_event rejected (five_hour)", ResetsAt: 1788513600,
		Usage: &Usage{},
	}},
	{"codex_real.jsonl", Options{Formats: drivers.Formats("codex")}, extraWant{
		// A bash loop bug: it reads "complete" here and exits; the block says false.
		Format: FormatCodex, OutputFormat: "json", Session: "0199a213-81c0-7800-8aa1-bbab2a035a53",
		TextPrefix: "Story 2 is complete; more stories remain.", Tasks: 1, Tests: "PASSING", BlockCount: 1, Docs: 9, FormatConf: 100,
		Usage: &Usage{InputTokens: 24763 - 24448, OutputTokens: 122, CacheReadTokens: 24448}, // uncached input: Codex counts the cached part inside input_tokens
	}},
	{"codex_turn_failed.jsonl", Options{Formats: drivers.Formats(""), ExitCode: 1}, extraWant{
		Format: FormatCodex, OutputFormat: "json", Session: "th-limit", Tests: "UNKNOWN", Docs: 4,
		IsError: true, HasErrors: true, Limited: true, FormatConf: 100,
		LimitReason: "CLI error: You've hit your usage limit. Upgrade to Pro (https://openai.com/chatgpt/pricing) or try again in 2 hours.",
	}},
	{"opencode_real.jsonl", Options{Formats: drivers.Formats("")}, extraWant{
		Format: FormatOpenCode, OutputFormat: "json", Session: "ses_6f1a2b3c4d5eAbCdEf", Exit: true, Completion: true,
		TextPrefix: "Implemented the parser.", Tasks: 1, Tests: "PASSING", BlockCount: 1, Docs: 8, States: []string{"idle"},
		FormatConf: 100, Confidence: 100,
		Usage: &Usage{InputTokens: 300, OutputTokens: 65, CacheReadTokens: 110, CacheCreationTokens: 10, CostUSD: 0.03},
	}},
	{"cursor_stream_real.jsonl", Options{Formats: drivers.Formats("cursor")}, extraWant{
		Format: FormatStreamJSON, OutputFormat: "json", Session: "c-77", Exit: true, Completion: true,
		TextPrefix: "Completed the auth module updates.", Tasks: 1, Tests: "PASSING", BlockCount: 1, Docs: 7,
		FormatConf: 100, Confidence: 100,
	}},
	{"codex_reordered.jsonl", Options{Formats: drivers.Formats("")}, extraWant{
		Format: FormatCodex, OutputFormat: "json", Session: "th-r", Exit: true, Completion: true, Keyword: "done",
		TextPrefix: "Part one.\nPart two. Done.", TextSuffix: "Part two. Done.", Tests: "UNKNOWN", Docs: 2,
		FormatConf: 100, Confidence: 100,
	}},
	{"codex_invalid_lines.jsonl", Options{Formats: drivers.Formats("")}, extraWant{
		Format: FormatCodex, OutputFormat: "json", Session: "th-inv", Exit: true, Completion: true,
		TextPrefix: "Finished the task.", Tests: "PASSING", BlockCount: 1, Docs: 2, Invalid: 2, FormatConf: 100, Confidence: 100,
	}},
	{"multi_block.txt", Options{Formats: drivers.Formats("")}, extraWant{
		// The last closed block counts (the bash loop reads the first); the
		// summary is the prose before it, not a line of a block (the bash
		// loop's is "TASKS_COMPLETED_THIS_LOOP: 1").
		Format: FormatText, OutputFormat: "text", TextPrefix: "I will report", Tasks: 1, Tests: "FAILING", BlockCount: 3,
		States: []string{"idle"}, FormatConf: 70, Confidence: 80, WorkSumPrefix: "Now the real status of this loop:",
	}},
	{"text_usage_limit.txt", Options{Formats: drivers.Formats(""), ExitCode: 1}, extraWant{
		Format: FormatText, OutputFormat: "text", TextPrefix: "Working...", Tests: "UNKNOWN", Limited: true,
		LimitReason: "agent said: Claude AI usage limit reached|1753567200", ResetsAt: 1753567200, FormatConf: 30,
		WorkSumPrefix: "Output analyzed",
	}},
	{"text_usage_limit.txt", Options{Formats: drivers.Formats(""), ExitCode: 0}, extraWant{
		Format: FormatText, OutputFormat: "text", TextPrefix: "Working...", Tests: "UNKNOWN", FormatConf: 30,
		WorkSumPrefix: "Output analyzed",
	}},
	{"text_usage_limit.txt", Options{Formats: drivers.Formats(""), ExitCode: 124, TimedOut: true}, extraWant{
		Format: FormatText, OutputFormat: "text", TextPrefix: "Working...", Tests: "UNKNOWN", FormatConf: 30,
		WorkSumPrefix: "Output analyzed",
	}},
	{"leading_whitespace.json", Options{Formats: drivers.Formats("")}, extraWant{
		Format: FormatJSONObject, OutputFormat: "json", Session: "lead-ws", Exit: true, Completion: true,
		TextPrefix: "Done.", Tests: "UNKNOWN", BlockCount: 1, Docs: 1, FormatConf: 100, Confidence: 100,
	}},
	{"claude_stream.jsonl", Options{Formats: drivers.Formats("copilot")}, extraWant{
		// Copilot prints text: the same bytes are read as plain text.
		Format: FormatText, OutputFormat: "text", TextPrefix: `{"type":"system"`, Tests: "UNKNOWN", BlockCount: 3,
		// The line with "completed" holds a status block (inside a JSON
		// string): the summary is the line before the block that counts.
		Tasks: 0, FormatConf: 70, Confidence: 0, WorkSumPrefix: `{"type":"rate_limit_event"`,
	}},
}

func TestExtraFixtures(t *testing.T) {
	t.Parallel()
	for _, tc := range extraCases {
		t.Run(tc.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", "extra", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			for _, oneByte := range []bool{false, true} {
				var r = bytes.NewReader(data)
				var res Result
				if oneByte {
					res, err = Analyze(iotest.OneByteReader(r), tc.opts)
				} else {
					res, err = Analyze(r, tc.opts)
				}
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(tc.want, projectExtra(&res, tc.want)); diff != "" {
					t.Errorf("oneByte=%v (-want +got):\n%s\nexplanation:\n%s", oneByte, diff, explained(&res))
				}
			}
		})
	}
}
