package swarm

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/ralphloop/ralph_loop/internal/clip"
	"github.com/ralphloop/ralph_loop/internal/safetext"
)

// WriteStatus ends --status in a project that ran --swarm (its root) with
// one line per worker: its state, loop, tasks and epics (the loop and
// tasks read from its worktree, as they are now). It writes nothing when
// the project has no swarm.
func WriteStatus(w io.Writer, root string) {
	st, found, err := load(root)
	if err != nil {
		fmt.Fprintf(w, "\nSwarm: %v\n", err)
		return
	}
	if !found {
		return
	}
	fmt.Fprintf(w, "\nSwarm (%s): %s, %d workers merging into %s, updated %s\n", filepath.Join(dir, stateFile), st.Status, len(st.Workers), st.Base, st.UpdatedAt)
	for _, wk := range st.Workers {
		if wk.State != mergedState {
			wk.Loop, wk.Done, wk.Total, wk.Question = progress(filepath.Join(root, wk.Worktree))
		}
		fmt.Fprintf(w, "  %s\n", wk.Line())
	}
}

// Line is the worker on the console and in --status.
func (w Worker) Line() string {
	line := fmt.Sprintf("%-9s %-9s loop %-3d %d/%d tasks  %s", workerName(w.ID), w.State, w.Loop, w.Done, w.Total, strings.Join(w.Epics, ", "))
	if w.Note != "" {
		line += " — " + w.Note
	}
	if w.Question != "" {
		// The agent's text: one line, its controls made visible.
		line += fmt.Sprintf(" — asks: \"%s\" (answer: cd %s && ralph_loop --answer \"YOUR ANSWER\")",
			safetext.Line(clip.Ellipsis(strings.TrimSpace(w.Question), 200)), w.Worktree)
	}
	return line
}
