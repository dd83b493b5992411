package store

import (
	"testing"

	"github.com/ralphloop/ralph_loop/internal/ralphdir"
)

// The state files only the store names are the loop's own to ralphdir
// (never the agent's progress, hidden by .ralph/.gitignore), as every
// file it names itself is.
func TestStoreFilesAreLoopOwned(t *testing.T) {
	for _, name := range []string{lastReset, ralphSession, exitSignals, claudeSessionID, ralphSessionHistory, circuitBreakerHistory,
		qualityGateResults, reviewFindings, reviewLastSHA, fallbackSessionID("codex"), errorHistoryFile,
		progressFile, lastOutputLength, loopStartSHA, loopDiffSummary, writeHeartbeatTrigger} {
		if !ralphdir.LoopOwned(name) {
			t.Errorf("%s is not loop-owned to ralphdir", name)
		}
	}
}
