package swarm

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strconv"

	"github.com/ralphloop/ralph_loop/internal/ralphdir"
)

// dir is the swarm's folder in the project, as bmalph names it.
const dir = ".swarm"

// stateFile is the swarm's state under dir: its workers, their epics and
// where each stands. --status reads it; a new --swarm resumes from it.
const stateFile = "swarm.json"

// Worker states.
const (
	pending     = "pending"   // its worktree is made, its loop not started yet
	running     = "running"   // its loop runs
	queued      = "queued"    // its loop finished the epics; waiting for the merge queue
	merging     = "merging"   // the queue tries its branch on the main branch
	fixing      = "fixing"    // the gates failed on the merged result: its loop runs again
	resolving   = "resolving" // its branch conflicts with the main branch: its loop resolves it
	mergedState = "merged"    // in the main branch; worktree and branch removed
	held        = "held"      // not merged: gates still red, or its loop stopped short; branch kept
	conflict    = "conflict"  // not merged: the conflict was not resolved; branch kept
	stopped     = "stopped"   // stopped by a signal before it was done
)

// Worker is one worker of the swarm.
type Worker struct {
	ID       int      `json:"id"`
	Worktree string   `json:"worktree"` // relative to the project: .swarm/worker-1
	Branch   string   `json:"branch"`   // swarm/worker-1
	Epics    []string `json:"epics"`
	State    string   `json:"state"`
	Loop     int      `json:"loop"`
	Done     int      `json:"tasks_done"`
	Total    int      `json:"tasks_total"`
	Attempts int      `json:"attempts"` // hand-backs after a red merge or a conflict
	ExitCode *int     `json:"exit_code,omitempty"`
	Note     string   `json:"note,omitempty"` // why it is held, the conflicting files
}

// finished reports whether the worker will not run again in this swarm.
func (w Worker) finished() bool {
	return w.State == mergedState || w.State == held || w.State == conflict
}

// stoppedShort reports whether the worker was held because its loop
// stopped before its epics were done (--max-loops, the breaker, a
// budget): a new --swarm runs that loop again.
func (w Worker) stoppedShort() bool {
	return w.State == held && w.ExitCode != nil && *w.ExitCode != 0
}

// state is .swarm/swarm.json.
type state struct {
	Base      string   `json:"base_branch"`
	StartedAt string   `json:"started_at"`
	UpdatedAt string   `json:"updated_at"`
	Status    string   `json:"status"` // running, merged, held, stopped
	PID       int      `json:"pid"`    // the --swarm process of the last run
	Workers   []Worker `json:"workers"`
}

// Name is a worker's folder and branch suffix: worker-1.
func workerName(id int) string { return "worker-" + strconv.Itoa(id) }

// branch is a worker's branch: swarm/worker-1.
func branch(id int) string { return "swarm/" + workerName(id) }

// maxState bounds what is read of swarm.json: the project is not trusted.
const maxState = 1 << 20

// load reads root's .swarm/swarm.json; found is false when there is none.
func load(root string) (st state, found bool, err error) {
	p := filepath.Join(root, dir, stateFile)
	b, err := ralphdir.ReadFileBeneath(root, filepath.Join(dir, stateFile), maxState)
	if errors.Is(err, fs.ErrNotExist) {
		return state{}, false, nil
	}
	if err != nil {
		return state{}, false, fmt.Errorf("read %s: %w", p, err)
	}
	if err := json.Unmarshal(b, &st); err != nil {
		return state{}, false, fmt.Errorf("read %s: %w (move it aside to start a new swarm)", p, err)
	}
	for _, w := range st.Workers {
		if w.ID < 1 || w.ID > maxWorkers || w.Worktree != filepath.ToSlash(filepath.Join(dir, workerName(w.ID))) || w.Branch != branch(w.ID) {
			return state{}, false, fmt.Errorf("read %s: worker %d is not one --swarm made (move the file aside to start a new swarm)", p, w.ID)
		}
	}
	return st, true, nil
}

// save writes the state atomically.
func save(root string, st state) error {
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	return ralphdir.WriteFileAtomic(filepath.Join(root, dir, stateFile), append(b, '\n'), 0o644)
}
