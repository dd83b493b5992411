package engine

import (
	"context"
	"io"
	"time"

	"github.com/ralphloop/ralph_loop/internal/observe"
	"github.com/ralphloop/ralph_loop/internal/ralphdir"
	"github.com/ralphloop/ralph_loop/internal/supervise"
)

// Deps are the engine's connections to the world.
type Deps struct {
	Bus      *observe.Fan   // the observers (console, logs, the .ralph/ files...)
	Keeper   observe.Keeper // saves every change of the kept state (the state store)
	Dir      *ralphdir.Dir  // read only: the plan, the prompt, the call's stderr
	State    State          // the kept state, read at start-up
	Logs     Logs           // the agent's logs
	Now      func() time.Time
	Run      func(ctx context.Context, c supervise.Command, o supervise.Options) supervise.Outcome // supervise.Run in production
	LookPath func(string) (string, error)
	Env      []string // the agent's environment (the loop's own)
	Stopper  *Stopper
	// Interactive: a terminal is on stdin (Ctrl+C skips waits; the
	// usage-limit prompt may ask).
	Interactive bool
	Stdin       io.Reader
	Version     string
	// Sandbox, when set, wraps each quality gate as the agent's calls are
	// wrapped (SANDBOX).
	Sandbox func(supervise.Command) (supervise.Command, func(), error)

	// Ticks: a terminal shows the ticking line of a call in the default
	// mode (events.AgentWorking said each second).
	Ticks bool

	// Swarm, when set, is what the workers of a --swarm share (swarm.go).
	Swarm Swarm

	// Tasks, when set, is the trackers' side of the plan (tasks.go).
	Tasks Tasks
}
