package swarm

import (
	"os"
	"path/filepath"
)

// claimsDir holds the workers' claims on GitHub issues (internal/tasks:
// a file per issue, created exclusively, naming its worker).
const claimsDir = "claims"

// WorkerDir is the swarm's folder a worker's loop was given in its
// environment (envDir), "" for a loop of its own: the trackers' claims
// among the workers are kept there (docs/TASKS.md).
func WorkerDir(lookup func(string) (string, bool)) string {
	d, ok := lookup(envDir)
	if !ok || !filepath.IsAbs(d) {
		return ""
	}
	if st, err := os.Stat(d); err != nil || !st.IsDir() {
		return ""
	}
	return d
}
