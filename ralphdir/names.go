package ralphdir

// File names under .ralph/, exactly as the bash reference uses them.
const (
	Status                = "status.json"
	Progress              = "progress.json"
	LiveLog               = "live.log"
	CallCount             = ".call_count"
	LastReset             = ".last_reset"
	ExitSignals           = ".exit_signals"
	ResponseAnalysis      = ".response_analysis"
	LastOutputLength      = ".last_output_length"
	LoopStartSHA          = ".loop_start_sha"
	LoopDiffSummary       = ".loop_diff_summary"
	ClaudeSessionID       = ".claude_session_id"
	RalphSession          = ".ralph_session"
	RalphSessionHistory   = ".ralph_session_history"
	CircuitBreakerState   = ".circuit_breaker_state"
	CircuitBreakerHistory = ".circuit_breaker_history"
	QualityGateResults    = ".quality_gate_results"
	ReviewFindings        = ".review_findings.json"
	ReviewLastSHA         = ".review_last_sha"
	WriteHeartbeatTrigger = ".write_heartbeat_triggered"
	Prompt                = "PROMPT.md"
	FixPlan               = "@fix_plan.md"
	Agent                 = "@AGENT.md"
	ReviewPrompt          = "REVIEW_PROMPT.md"
	RalphRC               = ".ralphrc"
	Specs                 = "specs"
	Lib                   = "lib"
	LogsDir               = "logs"
	DocsGenerated         = "docs/generated"
	RalphLog              = "logs/ralph.log"
	MetricsLog            = "logs/metrics.jsonl"
	EventsLog             = "logs/events.jsonl"
	LockFile              = ".ralph_loop.lock"
	PauseFile             = ".ralph_paused"
	FailureState          = ".failure_guard"
)

// StatusValues are the only values status.json's "status" may hold: the set
// bmalph accepts (bmalph src/utils/constants.ts).
var StatusValues = []string{"running", "halted", "stopped", "completed", "success", "graceful_exit", "paused", "error"}

// ValidStatus reports whether s is one of StatusValues.
func ValidStatus(s string) bool {
	for _, v := range StatusValues {
		if v == s {
			return true
		}
	}
	return false
}
