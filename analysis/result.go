package analysis

import (
	"regexp"
	"strings"
	"time"
)

// Format names the shape an output was read as.
type Format string

const (
	FormatText       Format = "text"           // plain text (Copilot; Claude --output-format text; anything else)
	FormatJSONObject Format = "json-object"    // one JSON object: Claude/Cursor --output-format json, or the flat format
	FormatJSONArray  Format = "json-array"     // Claude's message array
	FormatStreamJSON Format = "stream-json"    // Claude/Cursor NDJSON: system, assistant, user, result, stream_event, ...
	FormatCodex      Format = "codex-jsonl"    // codex exec --json
	FormatOpenCode   Format = "opencode-jsonl" // opencode run --format json (1.x events, and the older assumed shape)
)

// outputFormat is the .response_analysis value: "text" or "json".
func (f Format) outputFormat() string {
	if f == FormatText || f == "" {
		return "text"
	}
	return "json"
}

// Options are the facts about one agent call that the engine knows and the
// output does not say.
type Options struct {
	// Formats make the readers of the JSON formats the output may be in,
	// tried in this order: the driver's own first, else the bash loop's
	// order of detection (drivers.Formats). Without them the output reads
	// as plain text, whatever it looks like.
	Formats []func() FormatReader

	Loop       int       // loop number written to .response_analysis
	OutputFile string    // path written to .response_analysis (AnalyzeFile: the file read)
	Now        time.Time // the analysis time (timestamp field); zero leaves it empty

	// FilesModified is the loop's git count of changed files.
	FilesModified int
	// FixPlanDelta, when set, is the change in checked @fix_plan.md boxes
	// during the loop; a claim that does not match suppresses completion
	// (see ApplyFixPlanDelta).
	FixPlanDelta *int

	// LimitPatterns are more phrases of a usage limit (USAGE_LIMIT_PATTERNS),
	// read like the built-in ones: in the agent's own text of a failed
	// call and in the errors the CLI reported.
	LimitPatterns []*regexp.Regexp

	ExitCode int  // the agent's exit code
	TimedOut bool // the call was stopped by a timeout

	// PreviousOutputLength is the previous text-path output length
	// (.last_output_length); 0 or less means none.
	PreviousOutputLength int
	// PreviousErrors are the error lines of the most recent earlier loops,
	// newest first (see ErrorHistory); up to three are compared.
	PreviousErrors [][]string
}

// Usage is the token and cost accounting the agent reported. Its fields
// match events.Usage, so the engine can convert it directly.
type Usage struct {
	InputTokens         int64
	OutputTokens        int64
	CacheReadTokens     int64
	CacheCreationTokens int64
	CostUSD             float64
}

// Result is everything one analysed output says.
type Result struct {
	// What was read.
	Format       Format
	OutputFormat string // "json" or "text", as in .response_analysis
	Documents    int    // valid JSON documents
	InvalidLines int    // lines skipped because they were not valid JSON
	SkippedLines int    // lines skipped because they were longer than MaxLine
	OutputLength int    // characters, trailing newlines removed (the bash loop's count)
	OutputBytes  int64

	// The agent's own reply: Claude's result, Codex's last agent message,
	// OpenCode's last step text, or the whole plain-text output. Kept up to
	// 256 KiB (maxResultText).
	ResultText      string
	ResultTruncated bool
	SessionID       string // never "", "0" or "null" when set
	IsError         bool   // the agent reported a failed call (is_error, turn.failed, error events)
	ErrorMessages   []string
	Usage           *Usage // nil when the output reports none
	DurationMS      *int64
	DurationAPIMS   *int64
	NumTurns        *int64

	// The RALPH_STATUS block that counted (nil when none) and how many
	// start markers were seen.
	Block      *StatusBlock
	BlockCount int

	// The exit decision for this loop (the .response_analysis fields).
	ExitSignal                  bool
	HasCompletionSignal         bool
	ExplicitExitSignal          bool   // EXIT_SIGNAL (or a JSON exit_signal key) decided it
	Status                      string // JSON status ("UNKNOWN" when absent); the block's STATUS is in Block
	TestsStatus                 string
	TasksCompletedThisLoop      int
	FixPlanCompletedDelta       int
	HasProgressTrackingMismatch bool
	WorkType                    string
	CompletionKeyword           string // first completion keyword that counted (heuristics)
	NoWorkPattern               string
	IsTestOnly                  bool
	IsStuck                     bool // more than five error lines (or a JSON error_count > 5), or RepeatsErrors
	RepeatsErrors               bool // every error line also appeared in each of the previous loops
	AskingQuestions             bool
	QuestionCount               int
	HasProgress                 bool
	FilesModified               int
	ReportedFilesModified       int // what the agent claimed: the status block's FILES_MODIFIED, else the JSON metadata.files_changed or files_modified
	FormatConfidence            int
	ConfidenceScore             int
	WorkSummary                 string

	HasErrors  bool     // error lines in the agent's own text, or IsError
	ErrorLines []string // those lines (up to 100)
	ErrorCount int

	HasPermissionDenials  bool
	PermissionDenialCount int
	DeniedCommands        []string

	UsageLimited       bool
	UsageLimitReason   string
	UsageLimitResetsAt int64  // unix seconds, 0 when unknown
	UsageLimitWindow   string // the window the limit is in (five_hour, seven_day, primary...), "" when unknown
	// UsageWindows are the usage windows the CLI reported (Claude's
	// rate_limit_event, Codex's rate-limit snapshot), the last report of
	// each; nil when it reported none.
	UsageWindows []LimitWindow

	States []string // <!-- ralph:state NAME --> markers in the agent's text

	// Question is what the agent asks the person and waits for: the
	// counted status block's QUESTION:, else the last line
	// RALPH_QUESTION: of its text; "" when it asks nothing. The agent's
	// text, untrusted: at most QuestionMax bytes, never shown but
	// through safetext.
	Question string

	// Reasons say how the output was read and what decided exit or
	// continue, in order ("note: ..." for the reading); DenialReason says
	// why a denial was seen. internal/explain words them for people.
	Reasons      []string
	DenialReason string

	// Written to .response_analysis.
	Loop       int
	Timestamp  string
	OutputFile string

	usageKnown usageFields
	ifFailed   *limitView // the limit a failed call would have read, when a success did not
	textPath   bool
	jsonFiles  int  // files_modified before the git count
	baseScore  int  // confidence before the git bonus
	gitBonus   bool // the text path without a block gets +20 for changed files
}

// QuestionMax bounds a question, in bytes: a longer one is cut, its
// last character an ellipsis.
const QuestionMax = 1000

// boundQuestion cuts q to QuestionMax bytes (on a character boundary,
// "…" last). A placeholder an agent copied from a template (none, n/a,
// null, -) asks nothing: "".
func boundQuestion(q string) string {
	switch strings.ToLower(strings.Trim(q, spaceChars+".()")) {
	case "", "none", "n/a", "na", "null", "nil", "-", "no", "no question":
		return ""
	}
	if len(q) <= QuestionMax {
		return q
	}
	return cutBytes([]byte(q), QuestionMax-len("…")) + "…"
}

// maxResultText is how much of the agent's reply a Result keeps.
const maxResultText = 256 << 10

// HasState reports whether the agent's text carried <!-- ralph:state name -->.
func (r *Result) HasState(name string) bool {
	for _, s := range r.States {
		if s == name {
			return true
		}
	}
	return false
}

// FirstErrorLine returns the first error line, else the first error
// message the agent reported, or "".
func (r *Result) FirstErrorLine() string {
	switch {
	case len(r.ErrorLines) > 0:
		return r.ErrorLines[0]
	case len(r.ErrorMessages) > 0:
		return r.ErrorMessages[0]
	}
	return ""
}

// SuppressCompletion clears the completion signals (a fix-plan mismatch,
// a blocking quality gate).
func (r *Result) SuppressCompletion() {
	r.HasCompletionSignal = false
	r.ExitSignal = false
}

// ClearPermissionDenials is what the loop does after handling a denial:
// completion and denial fields are cleared so the next loop starts clean.
func (r *Result) ClearPermissionDenials() {
	r.SuppressCompletion()
	r.HasPermissionDenials = false
	r.PermissionDenialCount = 0
	r.DeniedCommands = []string{}
}

// ApplyFixPlanDelta records the checkbox delta of the loop and, when it does
// not match the claimed TASKS_COMPLETED_THIS_LOOP (or either is above one,
// or the delta is negative), suppresses completion. It reports a mismatch.
func (r *Result) ApplyFixPlanDelta(delta int) bool {
	claimed := r.TasksCompletedThisLoop
	r.FixPlanCompletedDelta = delta
	r.HasProgressTrackingMismatch = claimed != delta || claimed > 1 || delta > 1 || delta < 0
	if r.HasProgressTrackingMismatch {
		r.SuppressCompletion()
	}
	return r.HasProgressTrackingMismatch
}

// SetFilesModified applies the loop's git count of changed files the way
// the bash loop does: the JSON path keeps the reported count unless git
// saw changes; the text path takes the git count and, without a status
// block, adds 20 to the confidence score when files changed.
func (r *Result) SetFilesModified(n int) {
	r.HasProgress = n > 0
	r.ConfidenceScore = r.baseScore
	switch {
	case r.textPath:
		r.FilesModified = n
		if n > 0 && r.gitBonus {
			r.ConfidenceScore += 20
		}
	case n > 0:
		r.FilesModified = n
	default:
		r.FilesModified = r.jsonFiles
	}
}

// UpdatesLastOutputLength: the bash loop writes .last_output_length (text path).
func (r *Result) UpdatesLastOutputLength() bool { return r.textPath }

// limitView is a usage limit as a Result reports it.
type limitView struct {
	reason   string
	window   string
	resetsAt int64
}

// IfFailed is the Result as it would be had the call failed (a non-zero
// exit): a limit only the agent's text tells of counts then. --analyze
// shows it, since a saved output does not say how its call ended.
func (r *Result) IfFailed() Result {
	c := *r
	if v := r.ifFailed; v != nil {
		c.UsageLimited, c.UsageLimitReason, c.UsageLimitWindow, c.UsageLimitResetsAt = true, v.reason, v.window, v.resetsAt
	}
	return c
}
