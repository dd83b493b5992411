package engine

import (
	"io"
	"time"

	"github.com/ralphloop/ralph_loop/internal/observe"
	"github.com/ralphloop/ralph_loop/internal/ralphdir"
	"github.com/ralphloop/ralph_loop/internal/supervise"
)

// Deps are the engine's connections to the world.
type Deps struct {
	Bus      *observe.Fan  // the observers (console, logs, the .ralph/ files...)
	Keeper   Keeper        // saves the kept state (the state store; keep.go)
	Dir      *ralphdir.Dir // read only: .ralph/'s paths, the pause file, which log names are taken
	Project  Project       // the project's files: prompt, plan, review prompt, a call's stderr log
	Repo     Repo          // the project's repository (git in production)
	State    State         // the kept state, read at start-up
	Logs     Logs          // the agent's logs
	Now      func() time.Time
	Agent    Agent // the agent CLI: its calls, the review's, its install's version
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
	// mode (events.CallTick said each second).
	Ticks bool

	// Swarm, when set, is what the workers of a --swarm share (swarm.go).
	Swarm Swarm

	// Ask, when set, is where the agent's questions wait for the
	// person's answer (ask.go; package ask's Box). Without it a question
	// is reported and nobody can answer it: ASK_TIMEOUT_ACTION applies at
	// once.
	Ask Asker
	// Quota, when set, is the machine's usage ledger: the usage governor
	// is on (quota.go).
	Quota Quota
	// Tasks, when set, is the trackers' side of the plan (tasks.go).
	Tasks Tasks
}
