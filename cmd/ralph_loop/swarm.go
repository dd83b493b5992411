package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/ralphloop/ralph_loop/internal/config"
	"github.com/ralphloop/ralph_loop/internal/gates"
	"github.com/ralphloop/ralph_loop/internal/safetext"
	"github.com/ralphloop/ralph_loop/internal/swarm"
)

// ExitHeldBack is --swarm's exit code when a worker's branch was not
// merged: held back by red gates, a loop that stopped short, or a
// conflict that was not resolved (README's "Exit codes").
const ExitHeldBack = 11

// What --swarm sets of swarm.Options.
const (
	swarmDefaultStagger = 5 * time.Second // between two workers' starts, as bmalph waits
	swarmRetries        = 2               // hand-backs per worker after a red merge or a conflict
)

// swarmStagger is the wait between two workers' starts; tests set
// RALPH_SWARM_STAGGER (a Go duration) to 0.
const swarmStagger = "RALPH_SWARM_STAGGER"

// runSwarm is --swarm N: the plan's epics worked by N loops of this
// program at once, each in its worktree, merged through the queue
// (internal/swarm, docs/SWARM.md).
func runSwarm(cfg *config.Config, o loopOptions, args []string, cwd string, stderr, rawErr io.Writer, lookupEnv func(string) (string, bool), sig *signals) error {
	if o.dashboard {
		return &config.UsageError{Key: "--swarm", Msg: "--swarm does not take --dashboard; watch the workers with 'ralph_loop --serve --projects .swarm'"}
	}
	if filepath.Clean(cfg.RalphDir) != ".ralph" {
		return fmt.Errorf("--swarm works with the .ralph/ folder only (RALPH_DIR is %s)", cfg.RalphDir)
	}
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("--swarm cannot find its own program: %w", err)
	}
	stagger := swarmDefaultStagger
	if v, ok := lookupEnv(swarmStagger); ok {
		if stagger, err = time.ParseDuration(v); err != nil || stagger < 0 {
			return fmt.Errorf("%s=%q: expected a duration such as 5s", swarmStagger, v)
		}
	}
	s := *cfg
	sb, err := newSandbox(cfg, filepath.Join(cwd, cfg.RalphDir), cwd, exec.LookPath)
	if err != nil {
		return err
	}
	defer sb.close()
	sig.setOut(stderr)
	// The board writes its own redraw escapes, so it gets the raw stream
	// and makes the text it prints safe itself.
	con := &board{w: rawErr, tty: isTerminal(rawErr) && escapes(rawErr), width: terminalWidth(rawErr),
		stamp: func() string { return time.Now().Format("2006-01-02 15:04:05") }}
	say := func(format string, a ...any) { con.log(fmt.Sprintf(format, a...)) }
	if sb != nil {
		for _, l := range sb.describe() {
			say("[INFO] Sandbox: %s", l)
		}
	}
	r, err := swarm.Run(sig.stopper.Context(), swarm.Options{
		Root:    cwd,
		Workers: cfg.SwarmWorkers,
		Exe:     exe,
		Args:    workerArgs(args),
		Env:     os.Environ(),
		Stagger: stagger,
		Gates: gates.Config{
			TestCommand: s.TestCommand,
			Gates:       strings.Join(s.QualityGates, ";"),
			Timeout:     s.QualityGateTimeout,
			Env:         os.Environ(),
			Wrap:        sb.queueWrap(),
		},
		Retries: swarmRetries,
		Release: releaseWorker(cfg),
		Show:    con.show,
		Log:     lineWriter(func(l string) { say("[SWARM] %s", l) }),
	})
	if err != nil {
		return err
	}
	held := r.HeldBack()
	switch r.Status {
	case "merged":
		say("[SUCCESS] swarm: all %d workers merged into %s", len(r.Workers), r.Base)
		return nil
	case "stopped":
		if se := sig.stopped(); se != nil {
			say("[WARN] swarm stopped (%s); run the same --swarm again to resume the workers that still have work", se.Name)
			return se
		}
		return fmt.Errorf("swarm stopped before every worker was done; run the same --swarm again to resume")
	default:
		lines := []string{fmt.Sprintf("ralph_loop: swarm: %d of %d workers not merged into %s:", len(held), len(r.Workers), r.Base)}
		for _, l := range held {
			lines = append(lines, safetext.Line(l))
		}
		return &exitError{code: ExitHeldBack, lines: lines}
	}
}

// workerArgs is the command line of a worker's loop: the person's, less
// --swarm and its value.
func workerArgs(args []string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return append(out, args[i:]...)
		case a == "--swarm":
			i++
		case strings.HasPrefix(a, "--swarm="):
		default:
			out = append(out, a)
		}
	}
	return out
}

// lineWriter calls f with each line written to it.
type lineWriter func(string)

func (f lineWriter) Write(p []byte) (int, error) {
	for _, l := range strings.Split(strings.TrimRight(string(p), "\n"), "\n") {
		f(l)
	}
	return len(p), nil
}
