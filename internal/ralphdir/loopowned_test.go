package ralphdir

import "testing"

func TestLoopOwned(t *testing.T) {
	for _, tc := range []struct {
		rel  string
		want bool
	}{
		{"status.json", true},
		{".circuit_breaker_state", true},
		{".call_count", true},
		{".ralph_loop.lock", true},
		{"logs/.ralph_loop.lock", true},
		{"logs/claude_output_2026-01-01_10-00-00-000_1.log", true},
		{"logs", true},
		{"live.log", true},
		{"live.log.1", true},
		{"live.log.5", true},
		{"live.log.6", false},
		{"PROMPT.md.1", false},
		{".error_history", true},
		{".failure_guard", true},
		{".ralph_paused", true},
		{".status.json.tmp-123", true},
		{"status.json.qg_tmp", true},
		{".response_analysis.tmp", true},
		{"@fix_plan.md.collapse_tmp", true},
		{".ralph_session.corrupt-20260101-100000", true},
		{".fallback_session_id.codex", true},
		{".fallback_session_id.claude-code.corrupt-20260101-100000", true},
		{"..fallback_session_id.codex.tmp-42", true},
		{"./status.json", true},
		{".gitignore", true},
		{"specs/.gitignore", false},
		{"@fix_plan.md", false},
		{"PROMPT.md", false},
		{"@AGENT.md", false},
		{"REVIEW_PROMPT.md", false},
		{".ralphrc", false},
		{"specs/a.md", false},
		{"specs/status.json", false},
		{"docs/generated/api.md", false},
		{"src.tmp", false},
		{"ralph_loop.sh", false},
		{"lib/circuit_breaker.sh", false},
	} {
		if got := LoopOwned(tc.rel); got != tc.want {
			t.Errorf("LoopOwned(%q) = %v, want %v", tc.rel, got, tc.want)
		}
	}
}
