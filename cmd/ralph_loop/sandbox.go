package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"

	"github.com/ralphloop/ralph_loop/drivers"
	"github.com/ralphloop/ralph_loop/internal/config"
	"github.com/ralphloop/ralph_loop/internal/sandbox"
	"github.com/ralphloop/ralph_loop/internal/supervise"
)

// agentSandbox is SANDBOX as this run applies it: the policy every agent
// call and quality gate runs under (nil when SANDBOX=off).
type agentSandbox struct {
	policy   sandbox.Policy
	lookPath func(string) (string, error)
	calls    atomic.Int64
}

// newSandbox resolves SANDBOX for this project. A mode this machine cannot
// run (a missing tool, a container without an image) is an error before
// any call is made; nil, nil when SANDBOX=off.
func newSandbox(cfg *config.Config, ralphDir, project string, lookPath func(string) (string, error)) (*agentSandbox, error) {
	mode, tool, err := sandbox.Resolve(cfg.Sandbox, runtime.GOOS, cfg.SandboxEngine, lookPath)
	if err != nil || mode == sandbox.Off {
		return nil, err
	}
	if mode == sandbox.Container && cfg.SandboxImage == "" {
		return nil, errors.New("SANDBOX=container needs SANDBOX_IMAGE: an image with the agent CLI and the gates' tools in it (docs/SANDBOX.md)")
	}
	project, err = filepath.Abs(project)
	if err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	ralphDir, err = filepath.Abs(ralphDir)
	if err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	home, _ := os.UserHomeDir()
	var homePaths []string
	for _, name := range []string{cfg.Driver, cfg.FallbackDriver} {
		if d, err := drivers.Get(name); err == nil && name != "" {
			homePaths = append(homePaths, d.HomePaths()...)
		}
	}
	return &agentSandbox{lookPath: lookPath, policy: sandbox.Policy{
		Mode: mode, Tool: tool, Project: project, RalphDir: ralphDir,
		Home: home, HomePaths: homePaths, Path: os.Getenv("PATH"),
		Network: cfg.SandboxNetwork, Image: cfg.SandboxImage,
		Root: os.Geteuid() == 0, UID: os.Geteuid(), GID: os.Getegid(),
		Label: project,
	}}, nil
}

// wrap is c as it runs in the sandbox, and what to do once it has ended
// (a container's watcher is already running).
func (s *agentSandbox) wrap(c supervise.Command) (supervise.Command, func(), error) {
	p := s.policy
	p.Name = fmt.Sprintf("ralph_loop-%d-%d", os.Getpid(), s.calls.Add(1))
	w, cleanup, err := sandbox.Wrap(p, c, s.lookPath)
	if err != nil || cleanup == nil {
		return w, nil, err
	}
	stopWatch := sandbox.Watch(p)
	return w, func() { cleanup(); stopWatch() }, nil
}

// run runs one agent call, in the sandbox when there is one (s may be
// nil: no sandbox).
func (s *agentSandbox) run(ctx context.Context, c supervise.Command, o supervise.Options) supervise.Outcome {
	if s != nil {
		w, cleanup, err := s.wrap(c)
		if err != nil {
			return supervise.Outcome{ExitCode: 126, Reason: supervise.StartFailed, Err: err}
		}
		if cleanup != nil {
			defer cleanup()
		}
		c = w
	}
	return supervise.Run(ctx, c, o)
}

// preview is the command line of c in the sandbox, for --dry-run: Wrap
// alone, which starts nothing.
func (s *agentSandbox) preview(c supervise.Command) ([]string, error) {
	p := s.policy
	p.Name = fmt.Sprintf("ralph_loop-%d-1", os.Getpid())
	w, _, err := sandbox.Wrap(p, c, s.lookPath)
	return w.Argv, err
}

// gateWrap is wrap for the quality gates, nil without a sandbox.
func (s *agentSandbox) gateWrap() func(supervise.Command) (supervise.Command, func(), error) {
	if s == nil {
		return nil
	}
	return s.wrap
}

// sweep stops the containers an earlier run of this project left behind
// (a loop killed with kill -9 cannot stop its own).
func (s *agentSandbox) sweep() error {
	if s == nil || s.policy.Mode != sandbox.Container {
		return nil
	}
	_, err := sandbox.Sweep(s.policy.Tool, s.policy.Label)
	return err
}

// describe is what --doctor and --dry-run say of the sandbox, one line per
// fact.
func (s *agentSandbox) describe() []string {
	if s == nil {
		return []string{"off: the agent and the gates run with your rights (SANDBOX=bwrap, seatbelt, container or auto confines them; docs/SANDBOX.md)"}
	}
	return s.policy.Describe()
}

// sandboxCheck is --doctor's line on SANDBOX: the mode in use, what the
// agent may write and what it cannot see, or why the mode cannot run here
// and how to install its tool.
func sandboxCheck(cfg *config.Config, dir interface{ Root() string }, cwd string, lookPath func(string) (string, error)) check {
	sb, err := newSandbox(cfg, dir.Root(), cwd, lookPath)
	if err != nil {
		return bad("sandbox: %v", err)
	}
	lines := sb.describe()
	return good("sandbox: %s", strings.Join(lines, "; "))
}
