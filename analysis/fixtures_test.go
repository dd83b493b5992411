package analysis_test

import (
	. "github.com/ralphloop/ralph_loop/analysis"
	"github.com/ralphloop/ralph_loop/drivers"

	"bytes"
	"os"
	"path/filepath"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
)

const rsBlock = "\n\n---RALPH_STATUS---\nSTATUS: COMPLETE\nEXIT_SIGNAL: true\n---END_RALPH_STATUS---"

// fixtureWant is the part of a Result the fixture README pins ("Correct"
// column of shared/fixtures/agent-output/README.md).
type fixtureWant struct {
	Format        Format
	Text          string
	Session       string
	Exit          bool
	Completion    bool
	Status        string
	BlockStatus   string
	Files         int
	FormatConf    int
	Confidence    int
	Length        int
	Denials       []string
	TestOnly      bool
	Stuck         bool
	Summary       string
	HasErrors     bool
	InputTokens   *int64
	OutputTokens  *int64
	CacheRead     *int64
	CacheCreation *int64
	Cost          *float64
	DurationMS    *int64
	DurationAPIMS *int64
	NumTurns      *int64
	WorkType      string
	ReportedFiles int
}

func i64(n int64) *int64     { return &n }
func f64(f float64) *float64 { return &f }
func project(r *Result) fixtureWant {
	ra := r.ResponseAnalysis()
	a := ra.Analysis
	w := fixtureWant{
		Format: r.Format, Text: r.ResultText, Session: r.SessionID, Exit: a.ExitSignal,
		Completion: a.HasCompletionSignal, Status: r.Status, Files: a.FilesModified,
		FormatConf: a.FormatConfidence, Confidence: a.ConfidenceScore, Length: a.OutputLength,
		Denials: a.DeniedCommands, TestOnly: a.IsTestOnly, Stuck: a.IsStuck, Summary: a.WorkSummary,
		HasErrors: r.HasErrors, InputTokens: a.InputTokens, OutputTokens: a.OutputTokens,
		CacheRead: a.CacheReadTokens, CacheCreation: a.CacheCreationTokens, Cost: a.TotalCostUSD,
		DurationMS: a.DurationMS, DurationAPIMS: a.DurationAPIMS, NumTurns: a.NumTurns,
		WorkType: r.WorkType, ReportedFiles: r.ReportedFilesModified,
	}
	if r.Block != nil {
		w.BlockStatus = r.Block.Status
	}
	if a.SessionID != r.SessionID {
		w.Session = "mismatch: " + a.SessionID
	}
	return w
}

var fixtureWants = map[string]fixtureWant{
	"cli_array_response.json": {
		Format: FormatJSONArray, Text: "All changes implemented." + rsBlock, Session: "session-xyz-789",
		Exit: true, Completion: true, Status: "UNKNOWN", BlockStatus: "COMPLETE", FormatConf: 100, Confidence: 100, Length: 363,
	},
	"cli_object_exit_false.json": {
		Format: FormatJSONObject, Text: "Story 1 complete, moving to story 2.\n\n---RALPH_STATUS---\nSTATUS: COMPLETE\nEXIT_SIGNAL: false\n---END_RALPH_STATUS---",
		Session: "session-continue-456", Status: "UNKNOWN", BlockStatus: "COMPLETE", FormatConf: 100, Length: 177,
	},
	"cli_object_response.json": {
		Format: FormatJSONObject, Text: "I've implemented the requested changes." + rsBlock, Session: "session-abc-123",
		Exit: true, Completion: true, Status: "COMPLETE", BlockStatus: "COMPLETE", Files: 5, ReportedFiles: 5,
		FormatConf: 100, Confidence: 100, Length: 280,
	},
	"cli_object_with_usage.json": {
		Format: FormatJSONObject, Text: "I've implemented the requested changes." + rsBlock, Session: "session-usage-test",
		Exit: true, Completion: true, Status: "COMPLETE", BlockStatus: "COMPLETE", Files: 5, ReportedFiles: 5,
		FormatConf: 100, Confidence: 100, Length: 573,
		InputTokens: i64(45000), OutputTokens: i64(12000), CacheRead: i64(30000), CacheCreation: i64(5000),
		Cost: f64(0.42), DurationMS: i64(142000), DurationAPIMS: i64(138000), NumTurns: i64(3),
	},
	"permission_denials.json": {
		Format: FormatJSONObject, Text: "Attempted to commit changes but permission was denied.", Session: "session-perm-001",
		Status: "UNKNOWN", FormatConf: 100, Length: 326,
		Denials: []string{"Bash(git commit -m 'feat: add authentication module')", "AskUserQuestion"},
	},
	"cursor_json_response.json": {
		Format: FormatJSONObject, Text: "Completed the auth module updates." + rsBlock, Session: "cursor-session-123",
		Exit: true, Completion: true, Status: "UNKNOWN", BlockStatus: "COMPLETE", FormatConf: 100, Confidence: 100, Length: 173,
	},
	"cursor_ndjson_response.jsonl": {
		Format: FormatStreamJSON, Text: "Completed the auth module updates." + rsBlock, Session: "cursor-session-123",
		Exit: true, Completion: true, Status: "UNKNOWN", BlockStatus: "COMPLETE", FormatConf: 100, Confidence: 100, Length: 523,
	},
	"codex_jsonl_response.jsonl": {
		Format: FormatCodex, Text: "Implemented the auth module." + rsBlock, Session: "codex-thread-123",
		Exit: true, Completion: true, Status: "UNKNOWN", BlockStatus: "COMPLETE", FormatConf: 100, Confidence: 100, Length: 259,
	},
	"codex_jsonl_completion.jsonl": {
		Format: FormatCodex, Text: "All tasks complete and ready for review.\nAuthentication changes are finished.", Session: "codex-thread-456",
		Exit: true, Completion: true, Status: "UNKNOWN", FormatConf: 100, Confidence: 100, Length: 292,
	},
	"codex_jsonl_no_agent_message.jsonl": {
		Format: FormatCodex, Text: "", Session: "codex-thread-789", Status: "UNKNOWN", FormatConf: 100, Length: 190,
	},
	"codex_jsonl_permission_denied.jsonl": {
		Format: FormatCodex, Text: "Permission denied: shell command requires approval before it can run.\n\n---RALPH_STATUS---\nSTATUS: BLOCKED\nEXIT_SIGNAL: false\n---END_RALPH_STATUS---",
		Session: "codex-thread-permission-1", Status: "UNKNOWN", BlockStatus: "BLOCKED", FormatConf: 100, Length: 309,
		Denials: []string{"permission_denied"},
	},
	"codex_jsonl_substring_false_positive.jsonl": {
		Format: FormatCodex, Text: "The migration was abandoned and the incomplete feature remains unfinished. Working on the next task.",
		Session: "codex-thread-789", Status: "UNKNOWN", FormatConf: 100, Length: 283,
	},
	"opencode_jsonl_response.jsonl": {
		Format: FormatOpenCode, Text: "Completed the OpenCode run." + rsBlock, Session: "opencode-session-123",
		Exit: true, Completion: true, Status: "UNKNOWN", BlockStatus: "COMPLETE", FormatConf: 100, Confidence: 100, Length: 270,
	},
	"flat_response.json": {
		Format: FormatJSONObject, Summary: "Implemented user authentication module", Exit: true, Completion: true,
		Status: "COMPLETE", Files: 3, ReportedFiles: 3, FormatConf: 80, Confidence: 100, Length: 220, WorkType: "IMPLEMENTATION",
	},
	"flat_response_in_progress.json": {
		Format: FormatJSONObject, Summary: "Working on database migrations", Status: "IN_PROGRESS", Files: 2, ReportedFiles: 2,
		FormatConf: 80, Confidence: 30, Length: 216, WorkType: "IMPLEMENTATION",
	},
	"text_response_complete.txt": {
		Format: FormatText, Exit: true, Completion: true, Status: "UNKNOWN", FormatConf: 30, Confidence: 10,
		Summary: "Output analyzed, no explicit summary found", Length: 229,
	},
	"text_response_stuck.txt": {
		Format: FormatText, Stuck: true, HasErrors: true, Status: "UNKNOWN", FormatConf: 30,
		Summary: "Output analyzed, no explicit summary found", Length: 349,
	},
	"text_response_test_only.txt": {
		Format: FormatText, TestOnly: true, Status: "UNKNOWN", FormatConf: 30,
		Summary: "Test execution only, no implementation", Length: 139,
	},
}

const sharedFixtures = "../../shared/fixtures/agent-output"

func TestFixtures(t *testing.T) {
	t.Parallel()
	t.Run("testdata", func(t *testing.T) { checkFixtures(t, filepath.Join("testdata", "agent-output")) })
	t.Run("shared", func(t *testing.T) {
		if _, err := os.Stat(sharedFixtures); err != nil {
			t.Skipf("shared fixtures not found at %s", sharedFixtures)
		}
		checkFixtures(t, sharedFixtures)
	})
}

// TestFixtureCopies: testdata holds byte-identical copies of the shared
// fixtures (when the shared tree is there to compare with).
func TestFixtureCopies(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat(sharedFixtures); err != nil {
		t.Skipf("shared fixtures not found at %s", sharedFixtures)
	}
	for name := range fixtureWants {
		ours, err := os.ReadFile(filepath.Join("testdata", "agent-output", name))
		if err != nil {
			t.Fatal(err)
		}
		theirs, err := os.ReadFile(filepath.Join(sharedFixtures, name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(ours, theirs) {
			t.Errorf("testdata/agent-output/%s differs from the shared fixture", name)
		}
	}
}

func checkFixtures(t *testing.T, dir string) {
	for name, want := range fixtureWants {
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			if want.Summary == "" {
				want.Summary = want.Text
			}
			if want.Format == FormatText {
				want.Text = string(data)
			}
			if want.Denials == nil {
				want.Denials = []string{}
			}
			if want.WorkType == "" {
				want.WorkType = "UNKNOWN"
			}
			for _, mode := range []string{"whole", "one-byte"} {
				var r = bytes.NewReader(data)
				var res Result
				if mode == "whole" {
					res, err = Analyze(r, Options{Formats: drivers.Formats("")})
				} else {
					res, err = Analyze(iotest.OneByteReader(r), Options{Formats: drivers.Formats("")})
				}
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(want, project(&res)); diff != "" {
					t.Errorf("%s read (-want +got):\n%s\nexplanation:\n%s", mode, diff, explained(&res))
				}
			}
		})
	}
}

func TestFixturesAllCovered(t *testing.T) {
	t.Parallel()
	entries, err := os.ReadDir(filepath.Join("testdata", "agent-output"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() == "README.md" {
			continue
		}
		if _, ok := fixtureWants[e.Name()]; !ok {
			t.Errorf("fixture %s has no expected values", e.Name())
		}
	}
}
