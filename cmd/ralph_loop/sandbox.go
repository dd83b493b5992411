package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ralphloop/ralph_loop/drivers"
	"github.com/ralphloop/ralph_loop/internal/config"
	"github.com/ralphloop/ralph_loop/internal/events"
	"github.com/ralphloop/ralph_loop/internal/sandbox"
	"github.com/ralphloop/ralph_loop/internal/supervise"
)

// agentSandbox is SANDBOX as this run applies it: the policy every agent
// call and quality gate runs under (nil when SANDBOX=off).
type agentSandbox struct {
	policy   sandbox.Policy
	lookPath func(string) (string, error)
	calls    atomic.Int64
	// identity is the person's git identity as a gitconfig ("" when they
	// have none); written to a file of the run's own at the first call.
	identity string
	once     sync.Once
	tmp      string   // the folder of that file, removed by close
	notes    []string // more lines for describe
}

// newSandbox resolves SANDBOX for this project. A mode this machine cannot
// run (a missing tool, a container without an image, a worktree whose git
// folders cannot be trusted) is an error before any call is made; nil, nil
// when SANDBOX=off.
// rootRefusal is the warning a run (and --dry-run) gives before its
// first call when Claude Code will refuse every call as root
// (drivers.RootBypass, the rule --doctor checks too); nil when it will not.
func rootRefusal(cfg *config.Config, sb *agentSandbox) *events.RootRefusal {
	rb := drivers.RootBypass{Root: os.Geteuid() == 0 && runtime.GOOS != "windows", PermissionMode: cfg.PermissionMode,
		Driver: cfg.Driver, Fallback: cfg.FallbackDriver, LookupEnv: os.LookupEnv}
	if sb != nil {
		rb.Sandbox = sb.policy.Mode
	}
	if _, refused, _ := rb.Check(); !refused {
		return nil
	}
	return &events.RootRefusal{Problem: drivers.RootBypassProblem, Fix: drivers.RootBypassFix}
}

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
	git, err := sandbox.LinkedWorktree(project)
	if err != nil {
		return nil, err
	}
	git.Write = true // the agent commits
	home, _ := os.UserHomeDir()
	root := os.Geteuid() == 0
	userNS := mode == "bwrap" && sandbox.UserNamespaces(tool, root)
	clis, notes := agents(cfg, lookPath)
	return &agentSandbox{lookPath: lookPath, identity: gitIdentity(), notes: notes, policy: sandbox.Policy{
		Mode: mode, Tool: tool, Project: project, RalphDir: ralphDir,
		Home: home, Agents: clis, Read: readPaths(cfg.SandboxRead, home), Git: git, Path: os.Getenv("PATH"),
		Network: cfg.SandboxNetwork, UserNS: userNS, NoMoreUserNS: userNS && sandbox.BwrapForbidsUserNS(tool), Image: cfg.SandboxImage,
		Root: root, UID: os.Geteuid(), GID: os.Getegid(),
		Label: project,
	}}, nil
}

// agents are the CLIs of PLATFORM_DRIVER and FALLBACK_DRIVER, each with
// the program that runs it (found as the start-up check finds it) and its
// files under $HOME: each CLI reaches its own files only, in its own calls.
// The command driver's program (AGENT_COMMAND) gets none, and so does a
// fallback the project's .ralphrc chose (not the person): a repository
// does not pick which other credentials of theirs the sandbox shows; the
// note says so.
func agents(cfg *config.Config, lookPath func(string) (string, error)) (clis []sandbox.Agent, notes []string) {
	for _, name := range []string{cfg.Driver, cfg.FallbackDriver} {
		d, err := drivers.Get(name)
		if err != nil || name == "" || d.Binary() == "" {
			continue
		}
		res, err := drivers.Check(context.Background(), d, drivers.CheckOptions{LookPath: lookPath})
		if err != nil {
			continue // not installed: its calls fail to start anyway
		}
		home := d.HomePaths()
		if name == cfg.FallbackDriver && name != cfg.Driver && cfg.FromProject("FALLBACK_DRIVER") && len(home) > 0 {
			home = nil
			notes = append(notes, fmt.Sprintf("FALLBACK_DRIVER=%s comes from the project's .ralphrc: %s gets none of its files under $HOME (set FALLBACK_DRIVER yourself to let it sign in)", name, filepath.Base(res.Path)))
		}
		clis = append(clis, sandbox.Agent{Program: res.Path, Home: home})
	}
	return clis, notes
}

// readPaths are SANDBOX_READ's paths, ~/ made home.
func readPaths(paths []string, home string) []string {
	var out []string
	for _, p := range paths {
		if rest, ok := strings.CutPrefix(p, "~/"); ok {
			if home == "" {
				continue
			}
			p = filepath.Join(home, rest)
		}
		out = append(out, filepath.Clean(p))
	}
	return out
}

// gitIdentity is the person's git identity (user.name, user.email) and
// what git needs to work in a repository they do not own (safe.directory),
// as a gitconfig of its own: the sandbox shows it as ~/.gitconfig instead
// of theirs, which may hold tokens (http.extraHeader, credentials in a
// URL) and names helpers. "" when they have no identity.
func gitIdentity() string {
	get := func(key string) []string {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, "git", "config", "--global", "--includes", "--get-all", key)
		cmd.Dir = os.TempDir()
		for _, kv := range os.Environ() {
			if k, _, _ := strings.Cut(kv, "="); k != "GIT_DIR" && k != "GIT_WORK_TREE" && k != "GIT_COMMON_DIR" {
				cmd.Env = append(cmd.Env, kv)
			}
		}
		out, err := cmd.Output()
		if err != nil {
			return nil
		}
		return strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	}
	var b strings.Builder
	section := func(name string, keys ...string) {
		var lines []string
		for _, k := range keys {
			for _, v := range get(name + "." + k) {
				if v != "" && !strings.ContainsAny(v, "\n\x00") {
					lines = append(lines, "\t"+k+" = "+gitQuote(v)+"\n")
				}
			}
		}
		if len(lines) > 0 {
			b.WriteString("[" + name + "]\n" + strings.Join(lines, ""))
		}
	}
	section("user", "name", "email")
	if b.Len() == 0 {
		return ""
	}
	section("safe", "directory")
	return "# ralph_loop's sandbox: your git identity, and nothing else of your git configuration.\n" + b.String()
}

// gitQuote is v as a gitconfig value.
func gitQuote(v string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(v) + `"`
}

// writeIdentity writes the identity to a file of the run's own, once; the
// policy's GitConfig names it. A failure leaves the sandbox without one
// (the agent's commits then fail to name an author, as they would for a
// person without an identity).
func (s *agentSandbox) writeIdentity() string {
	s.once.Do(func() {
		if s.identity == "" {
			return
		}
		sweepIdentities()
		dir, err := os.MkdirTemp("", identityPrefix+strconv.Itoa(os.Getpid())+"-")
		if err != nil {
			return
		}
		f := filepath.Join(dir, "gitconfig")
		if err := os.WriteFile(f, []byte(s.identity), 0o644); err != nil {
			os.RemoveAll(dir)
			return
		}
		s.tmp = dir
	})
	if s.tmp == "" {
		return ""
	}
	return filepath.Join(s.tmp, "gitconfig")
}

// identityPrefix starts the name of the folder of a run's identity file
// in the temporary folder: ralph_loop-sandbox-PID-RANDOM.
const identityPrefix = "ralph_loop-sandbox-"

// sweepIdentities removes the identity folders of this user's runs that
// ended without removing theirs (kill -9): their pid is gone.
func sweepIdentities() {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), identityPrefix+"*-*"))
	for _, d := range dirs {
		pid, err := strconv.Atoi(strings.SplitN(strings.TrimPrefix(filepath.Base(d), identityPrefix), "-", 2)[0])
		fi, lerr := os.Lstat(d)
		if err != nil || lerr != nil || !fi.IsDir() || !ownedByMe(fi) || pid == os.Getpid() || !pidGone(pid) {
			continue
		}
		os.RemoveAll(d)
	}
}

// close removes the identity's file (s may be nil).
func (s *agentSandbox) close() {
	if s != nil && s.tmp != "" {
		os.RemoveAll(s.tmp)
	}
}

// wrap is c as it runs in the sandbox, and what to do once it has ended
// (a container's watcher is already running).
func (s *agentSandbox) wrap(c supervise.Command) (supervise.Command, func(), error) {
	return s.wrapIn(s.policy, c)
}

// wrapIn is wrap under p, a variant of s.policy.
func (s *agentSandbox) wrapIn(p sandbox.Policy, c supervise.Command) (supervise.Command, func(), error) {
	p.GitConfig = s.writeIdentity()
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
// alone, which starts nothing and writes nothing (the identity's file is
// named, not written).
func (s *agentSandbox) preview(c supervise.Command) ([]string, error) {
	p := s.policy
	if s.identity != "" {
		p.GitConfig = filepath.Join(os.TempDir(), "ralph_loop-sandbox-…", "gitconfig")
	}
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

// queueWrap is wrap for the merge queue's gates, nil without a sandbox:
// each runs with the worktree it runs in (the command's folder) as its
// project, that worktree's git folders read-only, no agent CLI's files,
// and nothing else of the project writable.
func (s *agentSandbox) queueWrap() func(supervise.Command) (supervise.Command, func(), error) {
	if s == nil {
		return nil
	}
	return func(c supervise.Command) (supervise.Command, func(), error) {
		if c.Dir == "" {
			return s.wrap(c)
		}
		dir, err := filepath.Abs(c.Dir)
		if err != nil {
			return supervise.Command{}, nil, fmt.Errorf("sandbox: %w", err)
		}
		git, err := sandbox.LinkedWorktree(dir)
		if err != nil {
			return supervise.Command{}, nil, err
		}
		p := s.policy
		p.Project, p.RalphDir, p.Agents, p.Git = dir, filepath.Join(dir, ".ralph"), nil, git
		return s.wrapIn(p, c)
	}
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

// describe is what --doctor, --dry-run and the run's first lines say of
// the sandbox, one line per fact.
func (s *agentSandbox) describe() []string {
	if s == nil {
		return []string{"off: the agent and the gates run with your rights (SANDBOX=bwrap, seatbelt, container or auto confines them; docs/SANDBOX.md)"}
	}
	p := s.policy
	if s.identity != "" {
		p.GitConfig = "(generated)"
	}
	return append(p.Describe(), s.notes...)
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
