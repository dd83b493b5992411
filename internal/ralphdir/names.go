package ralphdir

import (
	"strconv"
	"strings"
)

// File names under .ralph/, exactly as the bash loop uses them.
const (
	Status              = "status.json"
	LiveLog             = "live.log"
	CallCount           = ".call_count"
	ResponseAnalysis    = ".response_analysis"
	CircuitBreakerState = ".circuit_breaker_state"
	Prompt              = "PROMPT.md"
	FixPlan             = "@fix_plan.md"
	Agent               = "@AGENT.md"
	ReviewPrompt        = "REVIEW_PROMPT.md"
	RalphRC             = ".ralphrc"
	Specs               = "specs"
	lib                 = "lib"
	LogsDir             = "logs"
	DocsGenerated       = "docs/generated"
	RalphLog            = "logs/ralph.log"
	MetricsLog          = "logs/metrics.jsonl"
	EventsLog           = "logs/events.jsonl"
	LockFile            = "logs/.ralph_loop.lock"
	oldLockFile         = ".ralph_loop.lock" // where versions before 2026-11 kept the lock
	PauseFile           = ".ralph_paused"
	failureState        = ".failure_guard"
	// TaskMap maps the plan's tracked lines to the trackers' items
	// (TASK_SOURCES, docs/TASKS.md).
	TaskMap = ".tasks.json"
)

// FallbackSessionPrefix starts the name of a fallback driver's own agent
// session file (FALLBACK_DRIVER): ".fallback_session_id.codex". The main
// driver's session stays in .claude_session_id, whatever the driver.
const FallbackSessionPrefix = ".fallback_session_id."

// loopOwnedNames are the files the loop itself writes directly under
// .ralph/ (state, history, markers, the lock of older versions; the state
// files only the store names are spelt out), plus the heartbeat markers
// the bash loop's helpers write there.
var loopOwnedNames = map[string]bool{
	Status: true, "progress.json": true, LiveLog: true, CallCount: true, ".last_reset": true,
	".exit_signals": true, ResponseAnalysis: true, ".last_output_length": true, ".loop_start_sha": true,
	".loop_diff_summary": true, ".claude_session_id": true, ".ralph_session": true, ".ralph_session_history": true,
	CircuitBreakerState: true, ".circuit_breaker_history": true, ".quality_gate_results": true,
	".review_findings.json": true, ".review_last_sha": true, ".write_heartbeat_triggered": true, oldLockFile: true,
	PauseFile: true, failureState: true, ".error_history": true, TaskMap: true,
	".heartbeat_marker": true, ".write_heartbeat_seen": true, ".write_heartbeat_pid": true,
}

// LoopOwned reports whether rel, a slash-separated path relative to
// .ralph/, is a file the loop writes for itself: state, history, markers,
// locks, temp, rotated and quarantined copies, everything under logs/, and
// the .gitignore that hides all of those from git (gitIgnoreContent). Such
// files are never the agent's progress, tracked or not, committed or not.
// The user's files (PROMPT.md, @fix_plan.md, @AGENT.md, specs/,
// REVIEW_PROMPT.md, .ralphrc, …) are not loop-owned.
func LoopOwned(rel string) bool {
	rel = strings.TrimPrefix(rel, "./")
	if rel == GitIgnore {
		return true // written by the loop (EnsureGitIgnore), but never ignored itself
	}
	if rel == LogsDir || strings.HasPrefix(rel, LogsDir+"/") {
		return true
	}
	if strings.Contains(rel, "/") {
		return false
	}
	if loopOwnedNames[rel] || strings.HasPrefix(rel, FallbackSessionPrefix) {
		return true
	}
	// Atomic-write temp files (".NAME.tmp-XXXX", the bash loop's
	// "NAME.tmp", "NAME.qg_tmp" and "@fix_plan.md.collapse_tmp") and
	// quarantined copies of loop-owned files ("NAME.corrupt-YYYYMMDD-HHMMSS").
	if strings.HasPrefix(rel, ".") && strings.Contains(rel, ".tmp-") || strings.HasSuffix(rel, ".collapse_tmp") {
		return true
	}
	// Rotated copies ("live.log.1" … "live.log.5").
	if i := strings.LastIndexByte(rel, '.'); i > 0 && loopOwnedNames[rel[:i]] {
		if n, err := strconv.Atoi(rel[i+1:]); err == nil && n >= 1 && n <= rotateKeep {
			return true
		}
	}
	for _, sep := range []string{".corrupt-", ".qg_tmp", ".tmp"} {
		if i := strings.Index(rel, sep); i > 0 && loopOwnedNames[rel[:i]] {
			return true
		}
	}
	return false
}
