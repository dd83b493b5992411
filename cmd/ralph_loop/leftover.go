package main

import (
	"io"

	"github.com/ralphloop/ralph_loop/internal/ralphdir"
	"github.com/ralphloop/ralph_loop/internal/supervise"
)

// guardCalls makes sure no call outlives the loop (see supervise.Guard):
// it stops the agent a previous run left running, recorded in
// ralphdir.AgentCall, before any call of this run. It runs with the
// project's lock held.
func guardCalls(dir *ralphdir.Dir, stderr io.Writer) error {
	return supervise.Guard(func(rec any) (bool, error) { return dir.ReadJSON(ralphdir.AgentCall, rec) },
		func() error { return dir.Remove(ralphdir.AgentCall) }, stderr)
}

// recordCall keeps ralphdir.AgentCall while the call o configures runs:
// written atomically once it has started, removed when it ends (the
// returned func). A record that cannot be written only loses the start-up
// check of guardCalls; the sentinel still stops the call.
func recordCall(dir *ralphdir.Dir, o *supervise.Options) (done func()) {
	o.Record = func(rec []byte) { _ = dir.WriteFile(ralphdir.AgentCall, rec) }
	return func() { _ = dir.Remove(ralphdir.AgentCall) }
}
