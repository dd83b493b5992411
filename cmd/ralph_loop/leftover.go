package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/ralphloop/ralph_loop/internal/ralphdir"
	"github.com/ralphloop/ralph_loop/internal/supervise"
)

// leftoverGrace is how long an agent a dead loop left running gets between
// SIGTERM and SIGKILL at start-up.
const leftoverGrace = 5 * time.Second

// guardCalls makes sure no call outlives the loop: it starts the sentinel
// (see supervise.StartSentinel), then stops the agent a previous run left
// running, recorded in ralphdir.AgentCall, before any call of this run.
// It runs with the project's lock held and before the loop becomes a
// subreaper. A sentinel that cannot start is a warning; a proven leftover
// that cannot be stopped refuses the start.
func guardCalls(dir *ralphdir.Dir, stderr io.Writer) error {
	if self, err := os.Executable(); err != nil {
		fmt.Fprintf(stderr, "ralph_loop: warning: cannot find this program to start its sentinel (%v); an agent may outlive a loop that is killed\n", err)
	} else if err := supervise.StartSentinel(self, "ralph_loop"); err != nil {
		fmt.Fprintf(stderr, "ralph_loop: warning: %v; an agent may outlive a loop that is killed\n", err)
	}
	var rec supervise.Leader
	found, err := dir.ReadJSON(ralphdir.AgentCall, &rec)
	if err != nil || !found {
		return nil // unreadable: it was quarantined, or there is nothing to stop
	}
	n, err := supervise.StopLeftovers(rec, leftoverGrace)
	if err != nil {
		return fmt.Errorf("the agent a previous run left running (pid %d) could not be stopped: %w; stop it (kill -- -%d) and run ralph_loop again", rec.Pid, err, rec.Pid)
	}
	if n > 0 {
		fmt.Fprintf(stderr, "ralph_loop: warning: stopped %d process(es) of the agent call a previous run left running (pid %d)\n", n, rec.Pid)
	}
	return dir.Remove(ralphdir.AgentCall)
}

// recordCall keeps ralphdir.AgentCall while the call o configures runs:
// written atomically once it has started, removed when it ends (the
// returned func). A record that cannot be written only loses the start-up
// check of guardCalls; the sentinel still stops the call.
func recordCall(dir *ralphdir.Dir, o *supervise.Options) (done func()) {
	next := o.Started
	o.Started = func(pid int, token string) {
		if next != nil {
			next(pid, token)
		}
		if rec, err := supervise.Identify(pid, token); err == nil {
			if b, err := json.MarshalIndent(rec, "", "  "); err == nil {
				_ = dir.WriteFile(ralphdir.AgentCall, append(b, '\n'))
			}
		}
	}
	return func() { _ = dir.Remove(ralphdir.AgentCall) }
}
