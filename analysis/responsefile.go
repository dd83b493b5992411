package analysis

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// ResponseAnalysis is the content of .ralph/.response_analysis, field for
// field as the bash loop writes it. The engine
// writes it atomically with Marshal's bytes.
type ResponseAnalysis struct {
	LoopNumber   int            `json:"loop_number"`
	Timestamp    string         `json:"timestamp"`
	OutputFile   string         `json:"output_file"`
	OutputFormat string         `json:"output_format"`
	Analysis     AnalysisFields `json:"analysis"`
}

// CommonFields are the keys of the "analysis" object that both the JSON and
// the text path write, in the bash loop's order.
type CommonFields struct {
	HasCompletionSignal         bool     `json:"has_completion_signal"`
	IsTestOnly                  bool     `json:"is_test_only"`
	IsStuck                     bool     `json:"is_stuck"`
	HasProgress                 bool     `json:"has_progress"`
	FilesModified               int      `json:"files_modified"`
	FormatConfidence            int      `json:"format_confidence"`
	ConfidenceScore             int      `json:"confidence_score"`
	ExitSignal                  bool     `json:"exit_signal"`
	TasksCompletedThisLoop      int      `json:"tasks_completed_this_loop"`
	TestsStatus                 string   `json:"tests_status"`
	FixPlanCompletedDelta       int      `json:"fix_plan_completed_delta"`
	HasProgressTrackingMismatch bool     `json:"has_progress_tracking_mismatch"`
	WorkSummary                 string   `json:"work_summary"`
	OutputLength                int      `json:"output_length"`
	HasPermissionDenials        bool     `json:"has_permission_denials"`
	PermissionDenialCount       int      `json:"permission_denial_count"`
	DeniedCommands              []string `json:"denied_commands"`
}

// AnalysisFields is the "analysis" object: the common keys, then the usage
// fields and session_id, which exist only on the JSON path (JSONFields);
// there they are written even when null, as the bash loop does.
type AnalysisFields struct {
	CommonFields

	InputTokens         *int64   `json:"input_tokens"`
	OutputTokens        *int64   `json:"output_tokens"`
	CacheReadTokens     *int64   `json:"cache_read_tokens"`
	CacheCreationTokens *int64   `json:"cache_creation_tokens"`
	TotalCostUSD        *float64 `json:"total_cost_usd"`
	DurationMS          *int64   `json:"duration_ms"`
	DurationAPIMS       *int64   `json:"duration_api_ms"`
	NumTurns            *int64   `json:"num_turns"`
	SessionID           string   `json:"session_id"`

	JSONFields bool `json:"-"` // write the usage fields and session_id
}

type allAnalysisFields AnalysisFields // no methods: plain encoding

func (a AnalysisFields) MarshalJSON() ([]byte, error) {
	if a.DeniedCommands == nil {
		a.DeniedCommands = []string{}
	}
	if a.JSONFields {
		return marshalNoEscape(allAnalysisFields(a))
	}
	return marshalNoEscape(a.CommonFields)
}

func (a *AnalysisFields) UnmarshalJSON(b []byte) error {
	var all allAnalysisFields
	if err := json.Unmarshal(b, &all); err != nil {
		return err
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(b, &keys); err != nil {
		return err
	}
	*a = AnalysisFields(all)
	for _, k := range []string{"session_id", "input_tokens", "output_tokens", "cache_read_tokens",
		"cache_creation_tokens", "total_cost_usd", "duration_ms", "duration_api_ms", "num_turns"} {
		if _, ok := keys[k]; ok {
			a.JSONFields = true
		}
	}
	return nil
}

func marshalNoEscape(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// Marshal returns the file content: jq-style pretty JSON (two-space indent,
// keys in the bash loop's order, no HTML escaping) and a final newline.
func (ra ResponseAnalysis) Marshal() ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(ra); err != nil {
		return nil, fmt.Errorf("encode response analysis: %w", err)
	}
	return buf.Bytes(), nil
}

// ParseResponseAnalysis reads a .response_analysis file.
func ParseResponseAnalysis(b []byte) (ResponseAnalysis, error) {
	var ra ResponseAnalysis
	if err := json.Unmarshal(b, &ra); err != nil {
		return ResponseAnalysis{}, fmt.Errorf("parse response analysis: %w", err)
	}
	return ra, nil
}

// ResponseAnalysis returns the .response_analysis content for this result
// (including any changes made after Analyze: SetFilesModified,
// ApplyFixPlanDelta, SuppressCompletion, ClearPermissionDenials).
func (r *Result) ResponseAnalysis() ResponseAnalysis {
	denied := r.DeniedCommands
	if denied == nil {
		denied = []string{}
	}
	a := AnalysisFields{CommonFields: CommonFields{
		HasCompletionSignal:         r.HasCompletionSignal,
		IsTestOnly:                  r.IsTestOnly,
		IsStuck:                     r.IsStuck,
		HasProgress:                 r.HasProgress,
		FilesModified:               r.FilesModified,
		FormatConfidence:            r.FormatConfidence,
		ConfidenceScore:             r.ConfidenceScore,
		ExitSignal:                  r.ExitSignal,
		TasksCompletedThisLoop:      r.TasksCompletedThisLoop,
		TestsStatus:                 r.TestsStatus,
		FixPlanCompletedDelta:       r.FixPlanCompletedDelta,
		HasProgressTrackingMismatch: r.HasProgressTrackingMismatch,
		WorkSummary:                 r.WorkSummary,
		OutputLength:                r.OutputLength,
		HasPermissionDenials:        r.HasPermissionDenials,
		PermissionDenialCount:       r.PermissionDenialCount,
		DeniedCommands:              denied,
	}}
	format := r.OutputFormat
	if format == "" {
		format = r.Format.outputFormat()
	}
	if format == "json" {
		a.JSONFields = true
		a.SessionID = r.SessionID
		if u := r.Usage; u != nil {
			known := r.usageKnown
			if known == 0 {
				known = usageIn | usageOut | usageCacheRead | usageCacheCreate | usageCost
			}
			pick := func(bit usageFields, v int64) *int64 {
				if known&bit == 0 {
					return nil
				}
				return &v
			}
			a.InputTokens = pick(usageIn, u.InputTokens)
			a.OutputTokens = pick(usageOut, u.OutputTokens)
			a.CacheReadTokens = pick(usageCacheRead, u.CacheReadTokens)
			a.CacheCreationTokens = pick(usageCacheCreate, u.CacheCreationTokens)
			if known&usageCost != 0 {
				c := u.CostUSD
				a.TotalCostUSD = &c
			}
		}
		a.DurationMS, a.DurationAPIMS, a.NumTurns = r.DurationMS, r.DurationAPIMS, r.NumTurns
	}
	return ResponseAnalysis{
		LoopNumber:   r.Loop,
		Timestamp:    r.Timestamp,
		OutputFile:   r.OutputFile,
		OutputFormat: format,
		Analysis:     a,
	}
}
