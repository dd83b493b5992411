package swarm

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/ralphloop/ralph_loop/internal/clip"
	"github.com/ralphloop/ralph_loop/internal/events"
	"github.com/ralphloop/ralph_loop/internal/ralphdir"
	"github.com/ralphloop/ralph_loop/internal/safetext"
)

// Here reports whether root (a project) has a swarm: a .swarm/swarm.json
// that --swarm wrote, readable or not.
func Here(root string) bool {
	_, found, err := load(root)
	return found || err != nil
}

// lockHeld reports whether a --swarm holds root's swarm lock now (read
// without taking it).
func lockHeld(root string) bool {
	held, err := ralphdir.ProbeLock(filepath.Join(root, dir, swarmLock))
	return err == nil && held
}

// WriteStatus ends --status in a project that ran --swarm (its root) with
// the swarm: whether it runs, how many workers are merged, and one line
// per worker: its state, loop, tasks and epics (the loop and tasks read
// from its worktree, as they are now), what its calls cost, and why it
// was not merged. It writes nothing when the project has no swarm.
func WriteStatus(w io.Writer, root string) {
	st, found, err := load(root)
	if err != nil {
		fmt.Fprintf(w, "\nSwarm: %s\n", safetext.Line(err.Error()))
		return
	}
	if !found {
		return
	}
	live := lockHeld(root)
	fmt.Fprintf(w, "\nSwarm (%s): %s %s, updated %s\n", filepath.Join(dir, stateFile), countOf(len(st.Workers), "worker"),
		baseWords(st, live), localStamp(st.UpdatedAt))
	fmt.Fprintf(w, "  %s\n", swarmLine(st, live))
	var total Spent
	for _, wk := range st.Workers {
		if wk.State != mergedState {
			wt := filepath.Join(root, wk.Worktree)
			wk.Loop, wk.Done, wk.Total, wk.Question = progress(wt)
			if sp, ok := spentIn(wt); ok { // with the run under way
				wk.Spent = sp
			}
		}
		total = total.sum(wk.Spent)
		fmt.Fprintf(w, "  %s\n", safetext.Line(wk.Line()))
	}
	fmt.Fprintf(w, "  spent: %s\n", total.words())
}

// baseWords says how the workers stand to the branch they merge into
// (the next line, swarmLine, says how many are merged): "merging into
// main" while the swarm runs (live: its lock is held), "merged into main"
// once all are, and "branched from main" when it stopped, held some back
// or died without saying so.
func baseWords(st state, live bool) string {
	base := safetext.Line(st.Base)
	switch {
	case st.Status == "running" && live:
		return "merging into " + base
	case st.Status == mergedState:
		return "merged into " + base
	}
	return "branched from " + base
}

// swarmLine says in words where the swarm stands: running or not, and
// how many workers are merged, not merged, still to go.
func swarmLine(st state, live bool) string {
	merged, notMerged := 0, 0
	for _, w := range st.Workers {
		switch {
		case w.State == mergedState:
			merged++
		case w.State == held || w.State == conflict:
			notMerged++
		}
	}
	left := len(st.Workers) - merged - notMerged
	var b strings.Builder
	switch {
	case live:
		fmt.Fprintf(&b, "running (--swarm, pid %d): ", st.PID)
	case st.Status == "running":
		b.WriteString("not running (the --swarm that ran it ended without saying how: killed?); run the same --swarm again to resume: ")
	case st.Status == "stopped":
		b.WriteString("stopped; run the same --swarm again to resume: ")
	default:
		b.WriteString("finished: ")
	}
	fmt.Fprintf(&b, "%d of %d merged", merged, len(st.Workers))
	if notMerged > 0 {
		fmt.Fprintf(&b, ", %d not merged (branch kept)", notMerged)
	}
	if left > 0 {
		fmt.Fprintf(&b, ", %d still at work or waiting", left)
	}
	return b.String()
}

// sum is s and o added up.
func (s Spent) sum(o Spent) Spent {
	return Spent{Runs: s.Runs + o.Runs, Calls: s.Calls + o.Calls, Tokens: s.Tokens + o.Tokens, CostUSD: events.RoundCost(s.CostUSD + o.CostUSD)}
}

// words is s for a person: "3 calls in 2 runs, 1200 tokens, $0.0300"
// ("1 call in 1 run").
func (s Spent) words() string {
	return fmt.Sprintf("%s in %s, %d tokens, $%.4f", countOf(s.Calls, "call"), countOf(s.Runs, "run"), s.Tokens, s.CostUSD)
}

// countOf is n things: "1 call", "2 calls".
func countOf(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

// localStamp is an RFC 3339 time of swarm.json as the logs write times
// (local, "2006-01-02 15:04:05"); a value that is no such time is shown
// as it is, made safe.
func localStamp(t string) string {
	p, err := time.Parse(time.RFC3339, t)
	if err != nil {
		return safetext.Line(t)
	}
	return p.Local().Format(events.LocalStamp)
}

// Line is the worker on the console and in --status.
func (w Worker) Line() string {
	line := fmt.Sprintf("%-9s %-9s loop %-3d %d/%d tasks  %s", workerName(w.ID), w.State, w.Loop, w.Done, w.Total, strings.Join(w.Epics, ", "))
	line += w.why()
	if w.Question != "" {
		// The agent's text: one line, its controls made visible.
		line += fmt.Sprintf(" — asks: \"%s\" (answer: cd %s && ralph_loop --answer \"YOUR ANSWER\")",
			safetext.Line(clip.Ellipsis(strings.TrimSpace(w.Question), 200)), w.Worktree)
	}
	return line
}

// why is the end of a worker's line: " — not merged: NOTE" for a worker
// held back or in conflict, " — NOTE" for one with a note, else "".
func (w Worker) why() string {
	switch {
	case w.State == held || w.State == conflict:
		if w.Note == "" {
			return " — not merged"
		}
		return " — not merged: " + w.Note
	case w.Note != "" && w.State != mergedState:
		return " — " + w.Note
	}
	return ""
}

// ReportView is --report's account of root's swarm: how it ended and what
// each worker's calls took (a merged worker's worktree, and its event
// log, is gone: swarm.json keeps its totals).
type ReportView struct {
	Status    string         `json:"status"`
	Running   bool           `json:"running"`
	Base      string         `json:"base_branch"`
	StartedAt string         `json:"started_at"`
	UpdatedAt string         `json:"updated_at"`
	Workers   []ReportWorker `json:"workers"`
	Spent     Spent          `json:"spent"`
}

// ReportWorker is one worker in ReportView.
type ReportWorker struct {
	Worker string   `json:"worker"`
	State  string   `json:"state"`
	Merged bool     `json:"merged"`
	Branch string   `json:"branch"`
	Epics  []string `json:"epics"`
	Note   string   `json:"note,omitempty"`
	Spent  Spent    `json:"spent"`
}

// ReportOf is root's swarm for --report; found is false when root has
// no swarm.
func ReportOf(root string) (r ReportView, found bool, err error) {
	st, found, err := load(root)
	if err != nil || !found {
		return r, found, err
	}
	r = ReportView{Status: st.Status, Running: lockHeld(root), Base: st.Base, StartedAt: st.StartedAt, UpdatedAt: st.UpdatedAt, Workers: []ReportWorker{}}
	for _, w := range st.Workers {
		if w.State != mergedState {
			if sp, ok := spentIn(filepath.Join(root, w.Worktree)); ok {
				w.Spent = sp
			}
		}
		r.Spent = r.Spent.sum(w.Spent)
		r.Workers = append(r.Workers, ReportWorker{Worker: workerName(w.ID), State: w.State, Merged: w.State == mergedState,
			Branch: w.Branch, Epics: w.Epics, Note: w.Note, Spent: w.Spent})
	}
	return r, true, nil
}

// WriteReport is ReportOf(root) for a person; it writes nothing and
// reports false when root has no swarm.
func WriteReport(w io.Writer, root string) (found bool, err error) {
	r, found, err := ReportOf(root)
	if err != nil || !found {
		return found, err
	}
	st, _, _ := load(root)
	fmt.Fprintf(w, "Swarm of %s (%s), %s\n", localStamp(r.StartedAt), filepath.Join(dir, stateFile), baseWords(st, r.Running))
	fmt.Fprintf(w, "  %s\n", swarmLine(st, r.Running))
	fmt.Fprintf(w, "\n  %-9s %-9s %5s %6s %12s %10s  %s\n", "worker", "state", "runs", "calls", "tokens", "cost USD", "epics")
	for _, wk := range r.Workers {
		line := fmt.Sprintf("  %-9s %-9s %5d %6d %12d %10.4f  %s", wk.Worker, wk.State, wk.Spent.Runs, wk.Spent.Calls, wk.Spent.Tokens, wk.Spent.CostUSD, strings.Join(wk.Epics, ", "))
		line += (Worker{State: wk.State, Note: wk.Note}).why()
		fmt.Fprintln(w, safetext.Line(line))
	}
	fmt.Fprintf(w, "  %-9s %-9s %5d %6d %12d %10.4f\n", "total", "", r.Spent.Runs, r.Spent.Calls, r.Spent.Tokens, r.Spent.CostUSD)
	// The worktrees of merged workers are gone: only the others' are named.
	var kept []string
	for _, wk := range st.Workers {
		if wk.State != mergedState && wk.Worktree != "" {
			kept = append(kept, safetext.Line(filepath.ToSlash(wk.Worktree)))
		}
	}
	switch len(kept) {
	case 0:
	case 1:
		fmt.Fprintf(w, "\n  The unmerged worker's own runs: ralph_loop --report in %s (kept until it is merged).\n", kept[0])
	default:
		fmt.Fprintf(w, "\n  An unmerged worker's own runs: ralph_loop --report in its worktree (%s; kept until it is merged).\n", strings.Join(kept, ", "))
	}
	return true, nil
}
