package swarm

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/ralphloop/ralph_loop/internal/events"
	"github.com/ralphloop/ralph_loop/internal/ralphdir"
	"github.com/ralphloop/ralph_loop/internal/report"
)

// Spent is what a worker's calls took in this swarm: every run of its
// loop added up (a hand-back runs the loop again, a run of its own, so
// the last run's status.json holds only that run's calls).
type Spent struct {
	Runs    int     `json:"runs"`
	Calls   int     `json:"calls"`
	Tokens  int64   `json:"tokens"`
	CostUSD float64 `json:"cost_usd"`
}

// add is s with one more run's calls, tokens and cost.
func (s Spent) add(calls int, u events.Usage) Spent {
	return Spent{Runs: s.Runs + 1, Calls: s.Calls + calls, Tokens: s.Tokens + u.Tokens(),
		CostUSD: events.RoundCost(s.CostUSD + u.CostUSD)}
}

// spentIn adds up the runs of a worktree's event log (with its rotated
// copies): the worker's whole life, since --swarm made the worktree. A
// log that cannot be read is nothing spent (ok false).
func spentIn(worktree string) (s Spent, ok bool) {
	d := ralphdir.New(filepath.Join(worktree, ".ralph"), nil)
	var readers []io.Reader
	for _, name := range ralphdir.WithRotated(ralphdir.EventsLog) {
		f, err := d.Open(name)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return Spent{}, false
		}
		defer f.Close()
		readers = append(readers, f)
	}
	if len(readers) == 0 {
		return Spent{}, false
	}
	runs, _ := report.Read(readers...)
	for _, r := range runs {
		if len(r.Loops) > 0 || r.Totals.Tokens() > 0 {
			s = s.add(len(r.Loops), r.Totals)
		}
	}
	return s, true
}

// recordSpent takes worker id's totals from its worktree's event log
// into swarm.json, after each run of its loop: a merged worker's
// worktree goes, its totals stay.
func (s *swarm) recordSpent(id int) {
	w := s.worker(id)
	if sp, ok := spentIn(filepath.Join(s.o.Root, w.Worktree)); ok && sp != w.Spent {
		s.update(id, func(w *Worker) { w.Spent = sp })
	}
}

// Membership is what a reader shows of a project folder that is a worker
// of a swarm (--serve --projects .swarm, --status in its worktree).
type Membership struct {
	Worker      string   `json:"worker"` // worker-2
	State       string   `json:"state"`  // as --status lists it: running, held, merged, ...
	Merged      bool     `json:"merged"` // its branch is in Base
	NotMerged   bool     `json:"not_merged"`
	Base        string   `json:"base_branch"`
	Branch      string   `json:"branch"`
	Epics       []string `json:"epics"`
	Note        string   `json:"note,omitempty"` // why it was not merged, or what it was handed back
	Attempts    int      `json:"attempts"`
	SwarmStatus string   `json:"swarm_status"` // swarm.json's status: running, merged, held, stopped
	// Spent is its loop's runs before the one under way, if any.
	Spent Spent `json:"spent"`
}

// MembershipOf is the swarm worker whose worktree is project (a folder
// .swarm/worker-i of a project that ran --swarm), as swarm.json has it;
// nil when project is no such worker. It reads swarm.json only.
func MembershipOf(project string) *Membership {
	parent := filepath.Dir(project)
	if filepath.Base(parent) != dir {
		return nil
	}
	st, found, err := load(filepath.Dir(parent))
	if err != nil || !found {
		return nil
	}
	rel := filepath.ToSlash(filepath.Join(dir, filepath.Base(project)))
	for _, w := range st.Workers {
		if w.Worktree == rel {
			return &Membership{Worker: workerName(w.ID), State: w.State, Merged: w.State == mergedState,
				NotMerged: w.State == held || w.State == conflict, Base: st.Base, Branch: w.Branch, Epics: w.Epics,
				Note: w.Note, Attempts: w.Attempts, SwarmStatus: st.Status, Spent: w.Spent}
		}
	}
	return nil
}

// StateStamp changes whenever the swarm.json of the swarm project is a
// worker of may have changed ("" when project is none): a reader that
// shows MembershipOf reads it again then.
func StateStamp(project string) string {
	parent := filepath.Dir(project)
	if filepath.Base(parent) != dir {
		return ""
	}
	st, err := os.Lstat(filepath.Join(parent, stateFile))
	if err != nil {
		return "-"
	}
	return fmt.Sprintf("%d.%d", st.Size(), st.ModTime().UnixNano())
}
