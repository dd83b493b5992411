package fakeagent

import (
	"encoding/json"
	"fmt"
)

// Usage numbers that ClaudeJSON puts into every result, for tests that check
// metrics.
const (
	claudeInputTokens         = 1200
	claudeOutputTokens        = 340
	claudeCacheReadTokens     = 5000
	claudeCacheCreationTokens = 200
	claudeCostUSD             = 0.0123
	claudeDurationMS          = 4200
	claudeDurationAPIMS       = 3900
	claudeNumTurns            = 3
)

type claudeUsage struct {
	InputTokens         int `json:"input_tokens"`
	OutputTokens        int `json:"output_tokens"`
	CacheReadTokens     int `json:"cache_read_input_tokens"`
	CacheCreationTokens int `json:"cache_creation_input_tokens"`
}

type claudeResult struct {
	Type          string      `json:"type"`
	Subtype       string      `json:"subtype"`
	IsError       bool        `json:"is_error"`
	DurationMS    int         `json:"duration_ms"`
	DurationAPIMS int         `json:"duration_api_ms"`
	NumTurns      int         `json:"num_turns"`
	Result        string      `json:"result"`
	SessionID     string      `json:"session_id"`
	TotalCostUSD  float64     `json:"total_cost_usd"`
	Usage         claudeUsage `json:"usage"`
}

// ClaudeJSON returns what "claude -p --output-format json" prints: one line
// holding the result object, with text as the result, session as session_id
// (snake case, as the real CLI writes it) and the Claude* usage numbers.
func ClaudeJSON(text, session string) string {
	b, err := json.Marshal(claudeResult{
		Type: "result", Subtype: "success",
		DurationMS: claudeDurationMS, DurationAPIMS: claudeDurationAPIMS, NumTurns: claudeNumTurns,
		Result: text, SessionID: session, TotalCostUSD: claudeCostUSD,
		Usage: claudeUsage{claudeInputTokens, claudeOutputTokens, claudeCacheReadTokens, claudeCacheCreationTokens},
	})
	if err != nil {
		panic(err) // only strings and numbers: cannot fail
	}
	return string(b) + "\n"
}

// StatusBlock returns a RALPH_STATUS block in the layout PROMPT.md asks the
// agent for, ending with a newline.
func StatusBlock(status string, exit bool, tasks int) string {
	rec := "Continue with the next task"
	if exit {
		rec = "All tasks complete"
	}
	return fmt.Sprintf("---RALPH_STATUS---\n"+
		"STATUS: %s\n"+
		"TASKS_COMPLETED_THIS_LOOP: %d\n"+
		"FILES_MODIFIED: %d\n"+
		"TESTS_STATUS: PASSING\n"+
		"WORK_TYPE: IMPLEMENTATION\n"+
		"EXIT_SIGNAL: %t\n"+
		"RECOMMENDATION: %s\n"+
		"---END_RALPH_STATUS---\n", status, tasks, tasks, exit, rec)
}
