package store

import "github.com/ralphloop/ralph_loop/internal/ralphdir"

// The state files under .ralph/ that only the store reads and writes,
// named exactly as the bash loop names them (the names are the contract:
// ralphdir counts each as the loop's own, see TestStoreFilesAreLoopOwned,
// and writes the last five without an fsync, as it does status.json). The
// files other packages read too are named in ralphdir.
const (
	lastReset             = ".last_reset"
	ralphSession          = ".ralph_session"
	exitSignals           = ".exit_signals"
	claudeSessionID       = ".claude_session_id"
	ralphSessionHistory   = ".ralph_session_history"
	circuitBreakerHistory = ".circuit_breaker_history"
	qualityGateResults    = ".quality_gate_results"
	reviewFindings        = ".review_findings.json"
	reviewLastSHA         = ".review_last_sha"
	progressFile          = "progress.json"
	lastOutputLength      = ".last_output_length"
	loopStartSHA          = ".loop_start_sha"
	loopDiffSummary       = ".loop_diff_summary"
	writeHeartbeatTrigger = ".write_heartbeat_triggered"
)

// fallbackSessionID is the session file of the fallback driver named
// driver (FALLBACK_DRIVER): ".fallback_session_id.codex". The main
// driver's session stays in .claude_session_id, whatever the driver.
func fallbackSessionID(driver string) string { return ralphdir.FallbackSessionPrefix + driver }

// statusValues are the only values status.json's "status" may hold: the set
// bmalph accepts (bmalph src/utils/constants.ts).
var statusValues = []string{"running", "halted", "stopped", "completed", "success", "graceful_exit", "paused", "error"}

// validStatus reports whether s is one of statusValues.
func validStatus(s string) bool {
	for _, v := range statusValues {
		if v == s {
			return true
		}
	}
	return false
}
