// Package sandbox confines the agent and the quality gates (SANDBOX, see
// docs/SANDBOX.md). Wrap turns a command into the same command run under
// bubblewrap (Linux), sandbox-exec (macOS) or a docker or podman container:
// in a session of its own with no terminal, with no capability (and, for
// bubblewrap, in a user namespace); the project read-write (with .git, so
// the agent commits), .ralph/ writable but for the loop's own files
// (read-only) and its logs (hidden); $HOME hidden but for the files of the
// agent CLI that runs, the program that runs it and a generated git
// identity; the system read-only with its secret files masked; a private
// /tmp; the loop's own secrets out of the environment. The loop, its git
// and its notifiers stay outside.
package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ralphloop/ralph_loop/drivers"
	"github.com/ralphloop/ralph_loop/internal/ralphdir"
	"github.com/ralphloop/ralph_loop/internal/supervise"
)

// Modes of SANDBOX.
const (
	Off       = "off"
	bwrap     = "bwrap"
	seatbelt  = "seatbelt"
	Container = "container"
	auto      = "auto"
)

// Modes are the values SANDBOX accepts.
var Modes = []string{Off, bwrap, seatbelt, Container, auto}

// secrets are the environment variables the loop keeps from the agent and
// the gates: its own credentials, and the agents' ways into the person's
// other keys (ssh-agent, gpg-agent).
var secrets = []string{"SERVE_TOKEN", "NOTIFY_WEBHOOK", "NOTIFY_COMMAND", "SSH_AUTH_SOCK", "GPG_AGENT_INFO"}

// hiddenSockets are the container engines' sockets: a process that reaches
// one controls every container and, through them, the machine.
var hiddenSockets = []string{"/run/docker.sock", "/var/run/docker.sock", "/run/podman/podman.sock"}

// Policy is what a sandboxed command may reach.
type Policy struct {
	Mode string // bwrap, seatbelt or Container (never Off or auto)
	Tool string // the sandbox program: bwrap, sandbox-exec, docker or podman (a path)
	// Project is the project root, read-write; RalphDir its .ralph/,
	// writable but for the loop's own files (ralphdir.LoopOwned), which
	// are read-only, and logs/, which is hidden.
	Project, RalphDir string
	// Home is $HOME, hidden but for the files of the agent CLI that runs
	// (Agents), the program that runs (see programBinds) and GitConfig.
	Home string
	// Agents are the agent CLIs this run may call: a command whose program
	// is one of theirs gets that CLI's files under Home; any other command
	// (a gate, another CLI) gets none of them.
	Agents []Agent
	// Read are more files and folders shown read-only (SANDBOX_READ,
	// absolute): the person's choice.
	Read []string
	// GitConfig is a file the loop wrote with the person's git identity
	// and nothing else, shown as ~/.gitconfig; "" for none.
	GitConfig string
	// Git is the repository's git folders outside Project, for a linked
	// worktree (a --swarm worker's); zero for an ordinary repository.
	Git WorktreeGit
	// Path is the loop's $PATH: how a script's interpreter is found.
	Path    string
	Network bool // SANDBOX_NETWORK: the agent reaches the network (its API)
	// UserNS: bubblewrap makes a user namespace (see UserNamespaces);
	// NoMoreUserNS: and forbids further ones inside (bwrap 0.8 and later,
	// --disable-userns).
	UserNS, NoMoreUserNS bool

	Image string // SANDBOX_IMAGE (container)
	Root  bool   // the loop runs as root: tell Claude Code it is sandboxed
	UID   int    // the container's user (the loop's own)
	GID   int
	// Name names a container (unique per call) and Label marks every
	// container of this project, so a later start can stop one left behind.
	Name, Label string
}

// Agent is an agent CLI: the program that runs it (a path, as LookPath
// finds it) and the files under $HOME it needs.
type Agent struct {
	Program string
	Home    []drivers.HomePath
}

// Describe is what --doctor, --dry-run and the run's first lines say of
// the sandbox p sets up, one line per fact.
func (p Policy) Describe() []string {
	net := "network on (the agent reaches its API, and this machine's loopback: docs/SANDBOX.md)"
	if !p.Network {
		net = "network off (loopback of its own only)"
	}
	mode := p.Mode
	if p.Mode == Container {
		mode += " (" + filepath.Base(p.Tool) + ", image " + p.Image + ")"
	}
	confined := "no capability, a session of its own (no terminal)"
	switch {
	case p.Mode == bwrap && p.UserNS && p.NoMoreUserNS:
		confined = "no capability, a user namespace (and none more inside), a session of its own (no terminal)"
	case p.Mode == bwrap && p.UserNS:
		confined = "no capability, a user namespace, a session of its own (no terminal)"
	case p.Mode == bwrap:
		confined = "no capability, a session of its own (no terminal); no user namespace (this system allows none)"
	case p.Mode == seatbelt:
		confined = "a session of its own (no terminal)"
	}
	writable := fmt.Sprintf("writable: %s (with .git) and .ralph/ but the loop's own files (read-only) and .ralph/logs (hidden)", p.Project)
	if p.Git.Dir != "" {
		writable += "; " + p.Git.describe()
	}
	var home []string
	for _, a := range p.Agents {
		for _, h := range a.Home {
			rw := "read-only"
			if h.Write {
				rw = "read-write"
			}
			home = append(home, fmt.Sprintf("~/%s (%s, to %s only)", h.Path, rw, filepath.Base(a.Program)))
		}
	}
	home = append(home, "the agent's program (read-only)")
	for _, r := range p.Read {
		home = append(home, r+" (read-only, SANDBOX_READ)")
	}
	if p.GitConfig != "" {
		home = append(home, "your git identity (user.name, user.email only)")
	}
	hidden := "hidden: $HOME except " + strings.Join(home, ", ")
	if p.Mode == bwrap || p.Mode == seatbelt {
		hidden += "; /etc/shadow-class files and root's home"
	}
	return []string{
		fmt.Sprintf("%s with %s; %s", mode, p.Tool, net),
		confined,
		writable,
		hidden,
		fmt.Sprintf("kept from its environment: %s", strings.Join(secrets, ", ")),
	}
}

// Resolve picks the mode and its tool for SANDBOX=mode on goos. engine is
// SANDBOX_ENGINE ("" = docker, else podman). A tool that is missing is an
// error that says how to install it.
func Resolve(mode, goos, engine string, lookPath func(string) (string, error)) (string, string, error) {
	find := func(m, tool, install string) (string, string, error) {
		p, err := lookPath(tool)
		if err != nil {
			return "", "", fmt.Errorf("SANDBOX=%s needs %s, which is not on PATH; %s, or set SANDBOX=off", mode, tool, install)
		}
		return m, p, nil
	}
	containerTool := func() (string, string, error) {
		engines := []string{"docker", "podman"}
		if engine != "" {
			engines = []string{engine}
		}
		for _, e := range engines {
			if p, err := lookPath(e); err == nil {
				return Container, p, nil
			}
		}
		return "", "", fmt.Errorf("SANDBOX=%s needs %s, which is not on PATH; install Docker or Podman (apt-get install podman), or set SANDBOX=off", mode, strings.Join(engines, " or "))
	}
	switch mode {
	case Off, "":
		return Off, "", nil
	case bwrap:
		if goos != "linux" {
			return "", "", fmt.Errorf("SANDBOX=bwrap works on Linux only; on %s use SANDBOX=%s", goos, nativeFor(goos))
		}
		return find(bwrap, "bwrap", "install bubblewrap (apt-get install bubblewrap, dnf install bubblewrap)")
	case seatbelt:
		if goos != "darwin" {
			return "", "", fmt.Errorf("SANDBOX=seatbelt works on macOS only; on %s use SANDBOX=%s", goos, nativeFor(goos))
		}
		return find(seatbelt, "sandbox-exec", "it comes with macOS (/usr/bin/sandbox-exec)")
	case Container:
		return containerTool()
	case auto:
		switch goos {
		case "linux":
			if p, err := lookPath("bwrap"); err == nil {
				return bwrap, p, nil
			}
		case "darwin":
			if p, err := lookPath("sandbox-exec"); err == nil {
				return seatbelt, p, nil
			}
		}
		m, p, err := containerTool()
		if err != nil {
			return "", "", fmt.Errorf("SANDBOX=auto found no sandbox on this machine: install bubblewrap (Linux: apt-get install bubblewrap), Docker or Podman, or set SANDBOX=off")
		}
		return m, p, nil
	}
	return "", "", fmt.Errorf("SANDBOX=%q is not a sandbox mode; use one of %s", mode, strings.Join(Modes, ", "))
}

func nativeFor(goos string) string {
	switch goos {
	case "linux":
		return bwrap
	case "darwin":
		return seatbelt
	}
	return Container
}

// Wrap returns c as it runs under p: in a session of its own (no
// controlling terminal). lookPath resolves c's program (the sandbox hides
// the folders it may have been found in) and a script's interpreter.
// cleanup, when not nil, is to be called after the command has ended (it
// removes a container).
func Wrap(p Policy, c supervise.Command, lookPath func(string) (string, error)) (wrapped supervise.Command, cleanup func(), err error) {
	if len(c.Argv) == 0 {
		return supervise.Command{}, nil, errors.New("sandbox: empty command")
	}
	env := env(c.Env, p.Root, p.gitConfigEnv())
	dir := c.Dir
	if dir == "" {
		dir = p.Project
	}
	c.NewSession = true
	switch p.Mode {
	case bwrap:
		prog, err := lookPath(c.Argv[0])
		if err != nil {
			return supervise.Command{}, nil, fmt.Errorf("sandbox: %s: %w", c.Argv[0], err)
		}
		argv := append(bwrapArgs(p, dir, prog, lookPath), prog)
		c.Argv = append(argv, c.Argv[1:]...)
	case seatbelt:
		prog, err := lookPath(c.Argv[0])
		if err != nil {
			return supervise.Command{}, nil, fmt.Errorf("sandbox: %s: %w", c.Argv[0], err)
		}
		c.Argv = append([]string{p.Tool, "-p", seatbeltProfile(p, prog, lookPath)}, append([]string{prog}, c.Argv[1:]...)...)
	case Container:
		c.Argv = append(containerArgs(p, dir, c.Argv[0], env, c.Stdin != ""), c.Argv...)
		c.Env = env
		c.Dir = p.Project
		return c, containerCleanup(p), nil
	default:
		return supervise.Command{}, nil, fmt.Errorf("sandbox: mode %q cannot wrap a command", p.Mode)
	}
	c.Env = env
	return c, nil, nil
}

// gitConfigEnv is GIT_CONFIG_GLOBAL naming the generated identity where
// the sandboxed git finds it ("" without one): git then reads no other
// global file, whatever the person's environment named.
func (p Policy) gitConfigEnv() string {
	switch {
	case p.GitConfig == "":
		return ""
	case p.Mode == seatbelt: // no folder can be shown elsewhere: the file is read where it is
		return "GIT_CONFIG_GLOBAL=" + p.GitConfig
	}
	return "GIT_CONFIG_GLOBAL=" + filepath.Join(p.Home, ".gitconfig")
}

// env is env (nil: the loop's own) without secrets, with IS_SANDBOX=1
// when the loop runs as root (Claude Code refuses
// --dangerously-skip-permissions as root unless it is told it is
// sandboxed), and with gitConfig (GIT_CONFIG_GLOBAL=…) when not "".
func env(env []string, root bool, gitConfig string) []string {
	if env == nil {
		env = os.Environ()
	}
	out := make([]string, 0, len(env)+2)
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if slices.Contains(secrets, k) || k == "IS_SANDBOX" || (gitConfig != "" && k == "GIT_CONFIG_GLOBAL") {
			continue
		}
		out = append(out, kv)
	}
	if root {
		out = append(out, "IS_SANDBOX=1")
	}
	if gitConfig != "" {
		out = append(out, gitConfig)
	}
	return out
}

// under reports whether path is dir or inside it.
func under(path, dir string) bool {
	if dir == "" || dir == "/" {
		return dir == "/"
	}
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}

// exists reports whether path exists (a link counts as what it points to
// only when that is not outside: Lstat, so a planted link is never bound).
func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// home is the agent CLI's files under Home for a command whose program is
// prog: those of the Agent whose program it is, none for anything else.
func (p Policy) home(prog string) []drivers.HomePath {
	if p.Home == "" || p.Home == "/" {
		return nil
	}
	real := realPath(prog)
	for _, a := range p.Agents {
		if a.Program != "" && (a.Program == prog || realPath(a.Program) == real) {
			return a.Home
		}
	}
	return nil
}

// realPath is p with its links resolved, or p when that fails.
func realPath(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return filepath.Clean(p)
}

// loopOwned are the entries of RalphDir that are the loop's own files
// (ralphdir.LoopOwned) and regular files, not logs/ (hidden whole): a
// sandbox shows them read-only, over themselves, so that they can be
// neither written nor replaced. A link is left out: it is not the loop's
// file, and the loop replaces it when it writes.
func (p Policy) loopOwned() []string {
	ents, err := os.ReadDir(p.RalphDir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		if e.Name() == ralphdir.LogsDir || !e.Type().IsRegular() || !ralphdir.LoopOwned(e.Name()) {
			continue
		}
		out = append(out, filepath.Join(p.RalphDir, e.Name()))
	}
	return out
}

// logsDir is .ralph/logs when it is a folder (hidden in the sandbox); ""
// when there is none to hide (a fresh checkout: the queue's gates).
func (p Policy) logsDir() string {
	d := filepath.Join(p.RalphDir, ralphdir.LogsDir)
	if fi, err := os.Lstat(d); err == nil && fi.IsDir() {
		return d
	}
	return ""
}

// ralphDirExists reports whether RalphDir is a folder (not a link).
func (p Policy) ralphDirExists() bool {
	fi, err := os.Lstat(p.RalphDir)
	return p.RalphDir != "" && err == nil && fi.IsDir()
}
