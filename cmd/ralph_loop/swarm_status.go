package main

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/ralphloop/ralph_loop/internal/config"
	"github.com/ralphloop/ralph_loop/internal/ralphdir"
	"github.com/ralphloop/ralph_loop/internal/swarm"
)

// showSwarmStatus ends --status in a project that ran --swarm with one
// line per worker: its state, loop, tasks and epics (the loop and tasks
// read from its worktree, as they are now). --status --json stays one
// object and leaves it out.
func showSwarmStatus(d *ralphdir.Dir, c *config.Config, stdout io.Writer) {
	if c.JSON {
		return
	}
	root := filepath.Dir(d.Root())
	st, found, err := swarm.Load(root)
	if err != nil {
		fmt.Fprintf(stdout, "\nSwarm: %v\n", err)
		return
	}
	if !found {
		return
	}
	fmt.Fprintf(stdout, "\nSwarm (%s): %s, %d workers merging into %s, updated %s\n", filepath.Join(swarm.Dir, swarm.StateFile), st.Status, len(st.Workers), st.Base, st.UpdatedAt)
	for _, w := range st.Workers {
		if w.State != swarm.Merged {
			w.Loop, w.Done, w.Total = swarm.Progress(filepath.Join(root, w.Worktree))
		}
		fmt.Fprintf(stdout, "  %s\n", workerLine(w))
	}
}
