// Package sandbox confines the agent and the quality gates (SANDBOX, see
// docs/SANDBOX.md). Wrap turns a command into the same command run under
// bubblewrap (Linux), sandbox-exec (macOS) or a docker or podman container:
// the project read-write (with .git, so the agent can commit), .ralph/
// read-only but for the files an agent is meant to edit, the loop's logs and
// lock hidden, $HOME hidden but for the agent CLI's own files, a private
// /tmp, and the loop's own secrets out of the environment. The loop, its
// git and its notifiers stay outside.
package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

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

// agentFiles are the files under .ralph/ that an agent is meant to edit, as
// the bash loop's prompt tells it: the plan, the build notes and the specs.
var agentFiles = []string{"@fix_plan.md", "@AGENT.md", "specs"}

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
	// read-only but for agentFiles, with logs/ hidden.
	Project, RalphDir string
	// Home is $HOME, hidden but for HomePaths (relative to it: the agent
	// CLI's configuration and credentials, read-write) and the person's
	// git identity (read-only).
	Home      string
	HomePaths []string
	// Path is the loop's $PATH: its folders under Home stay visible
	// (read-only), so an agent CLI installed there still runs.
	Path    string
	Network bool   // SANDBOX_NETWORK: the agent reaches the network (its API)
	Image   string // SANDBOX_IMAGE (container)
	Root    bool   // the loop runs as root: tell Claude Code it is sandboxed
	UID     int    // the container's user (the loop's own)
	GID     int
	// Name names a container (unique per call) and Label marks every
	// container of this project, so a later start can stop one left behind.
	Name, Label string
}

// Describe is what --doctor and --dry-run say of the sandbox p sets up,
// one line per fact.
func (p Policy) Describe() []string {
	net := "network on (the agent reaches its API)"
	if !p.Network {
		net = "network off"
	}
	var home []string
	for _, h := range p.HomePaths {
		home = append(home, "~/"+h)
	}
	keep := "your git identity (read-only)"
	if len(home) > 0 {
		keep = strings.Join(home, ", ") + " (read-write) and " + keep
	}
	mode := p.Mode
	if p.Mode == Container {
		mode += " (" + filepath.Base(p.Tool) + ", image " + p.Image + ")"
	}
	return []string{
		fmt.Sprintf("%s with %s; %s", mode, p.Tool, net),
		fmt.Sprintf("writable: %s (with .git), and in .ralph/ only %s", p.Project, strings.Join(agentFiles, ", ")),
		fmt.Sprintf("hidden: $HOME except %s; .ralph/logs (the logs and the lock)", keep),
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

// Wrap returns c as it runs under p. lookPath resolves c's program (the
// sandbox hides the folders it may have been found in). cleanup, when not
// nil, is to be called after the command has ended (it removes a
// container).
func Wrap(p Policy, c supervise.Command, lookPath func(string) (string, error)) (wrapped supervise.Command, cleanup func(), err error) {
	if len(c.Argv) == 0 {
		return supervise.Command{}, nil, errors.New("sandbox: empty command")
	}
	env := env(c.Env, p.Root)
	dir := c.Dir
	if dir == "" {
		dir = p.Project
	}
	switch p.Mode {
	case bwrap:
		prog, err := lookPath(c.Argv[0])
		if err != nil {
			return supervise.Command{}, nil, fmt.Errorf("sandbox: %s: %w", c.Argv[0], err)
		}
		argv := append(bwrapArgs(p, dir, prog), prog)
		c.Argv = append(argv, c.Argv[1:]...)
	case seatbelt:
		prog, err := lookPath(c.Argv[0])
		if err != nil {
			return supervise.Command{}, nil, fmt.Errorf("sandbox: %s: %w", c.Argv[0], err)
		}
		c.Argv = append([]string{p.Tool, "-p", seatbeltProfile(p, prog)}, append([]string{prog}, c.Argv[1:]...)...)
	case Container:
		c.Argv = append(containerArgs(p, dir, env, c.Stdin != ""), c.Argv...)
		c.Env = env
		c.Dir = p.Project
		return c, containerCleanup(p), nil
	default:
		return supervise.Command{}, nil, fmt.Errorf("sandbox: mode %q cannot wrap a command", p.Mode)
	}
	c.Env = env
	return c, nil, nil
}

// env is env (nil: the loop's own) without secrets, and with IS_SANDBOX=1
// when the loop runs as root: Claude Code refuses
// --dangerously-skip-permissions as root unless it is told it is sandboxed.
func env(env []string, root bool) []string {
	if env == nil {
		env = os.Environ()
	}
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if slices.Contains(secrets, k) || k == "IS_SANDBOX" {
			continue
		}
		out = append(out, kv)
	}
	if root {
		out = append(out, "IS_SANDBOX=1")
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

// visibleDirs are the folders under Home or /tmp that stay visible
// read-only: those of $PATH, and the folder of the program itself (and of
// its real file, when it is a link: an npm bin is one), each as its first
// folder below Home (~/.nvm, ~/.local) so a tool's libraries come along.
// Sensitive folders are never among them.
func (p Policy) visibleDirs(prog string) []string {
	var out []string
	add := func(d string) {
		if d == "" || !filepath.IsAbs(d) {
			return
		}
		switch {
		case p.Home != "" && p.Home != "/" && under(d, p.Home) && d != p.Home:
			rel, _ := filepath.Rel(p.Home, d)
			first := strings.Split(filepath.ToSlash(rel), "/")[0]
			if sensitive(first) {
				return
			}
			d = filepath.Join(p.Home, first)
		case under(d, "/tmp") && d != "/tmp":
		default:
			return
		}
		if !slices.Contains(out, d) && exists(d) && !under(p.Project, d) {
			out = append(out, d)
		}
	}
	for _, d := range filepath.SplitList(p.Path) {
		add(filepath.Clean(d))
	}
	if prog != "" {
		add(filepath.Dir(prog))
		if real, err := filepath.EvalSymlinks(prog); err == nil {
			add(filepath.Dir(real))
		}
	}
	return out
}

// sensitive are folders of $HOME that nothing is let through from.
func sensitive(name string) bool {
	switch name {
	case ".ssh", ".aws", ".gnupg", ".config", ".kube", ".docker", ".azure", ".netrc", ".password-store":
		return true
	}
	return false
}

// gitIdentity are the person's git settings (read-only), so the agent's
// commits carry their name.
var gitIdentity = []string{".gitconfig", ".config/git"}

// bwrapArgs is the bubblewrap command line, up to the program: a new pid
// namespace that dies with the loop, the system read-only, a private /tmp,
// $HOME hidden but for the CLI's files, the project read-write, .ralph/
// read-only but for agentFiles, its logs hidden.
func bwrapArgs(p Policy, dir, prog string) []string {
	a := []string{p.Tool, "--die-with-parent", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"}
	if !p.Network {
		a = append(a, "--unshare-net")
	}
	a = append(a, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "--tmpfs", "/var/tmp")
	for _, s := range hiddenSockets {
		if exists(s) {
			a = append(a, "--ro-bind", "/dev/null", s)
		}
	}
	if rt := os.Getenv("XDG_RUNTIME_DIR"); rt != "" && filepath.IsAbs(rt) && exists(rt) {
		a = append(a, "--tmpfs", rt)
	}
	if p.Home != "" && p.Home != "/" {
		a = append(a, "--tmpfs", p.Home)
	}
	for _, d := range p.visibleDirs(prog) {
		a = append(a, "--ro-bind", d, d)
	}
	for _, f := range gitIdentity {
		if path := filepath.Join(p.Home, f); p.Home != "" && exists(path) {
			a = append(a, "--ro-bind", path, path)
		}
	}
	for _, f := range p.HomePaths {
		if path := filepath.Join(p.Home, f); p.Home != "" && exists(path) {
			a = append(a, "--bind", path, path)
		}
	}
	a = append(a, "--bind", p.Project, p.Project)
	a = append(a, "--ro-bind", p.RalphDir, p.RalphDir)
	for _, f := range agentFiles {
		if path := filepath.Join(p.RalphDir, f); exists(path) {
			a = append(a, "--bind", path, path)
		}
	}
	a = append(a, "--tmpfs", filepath.Join(p.RalphDir, "logs"))
	return append(a, "--chdir", dir, "--")
}

// seatbeltProfile is the sandbox-exec profile: writes only to the project,
// the temporary folders and the CLI's own files; .ralph/ read-only but for
// agentFiles, its logs unreadable; $HOME unreadable but for the CLI's files,
// the person's git identity and the tools on $PATH; no network when
// Network is off. The last matching rule wins.
func seatbeltProfile(p Policy, prog string) string {
	q := func(s string) string { return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"` }
	var b strings.Builder
	b.WriteString("(version 1)\n(allow default)\n")
	if p.Home != "" && p.Home != "/" {
		fmt.Fprintf(&b, "(deny file-read* file-write* (subpath %s))\n", q(p.Home))
		for _, d := range p.visibleDirs(prog) {
			fmt.Fprintf(&b, "(allow file-read* (subpath %s))\n", q(d))
		}
		for _, f := range gitIdentity {
			fmt.Fprintf(&b, "(allow file-read* (subpath %s))\n", q(filepath.Join(p.Home, f)))
		}
	}
	b.WriteString("(deny file-write*)\n")
	b.WriteString(`(allow file-write* (literal "/dev/null") (literal "/dev/tty") (regex #"^/dev/fd/") (subpath "/private/tmp") (subpath "/private/var/folders"))` + "\n")
	fmt.Fprintf(&b, "(allow file-read* file-write* (subpath %s))\n", q(p.Project))
	for _, f := range p.HomePaths {
		fmt.Fprintf(&b, "(allow file-read* file-write* (subpath %s))\n", q(filepath.Join(p.Home, f)))
	}
	fmt.Fprintf(&b, "(deny file-write* (subpath %s))\n", q(p.RalphDir))
	for _, f := range agentFiles {
		fmt.Fprintf(&b, "(allow file-write* (subpath %s))\n", q(filepath.Join(p.RalphDir, f)))
	}
	fmt.Fprintf(&b, "(deny file-read* file-write* (subpath %s))\n", q(filepath.Join(p.RalphDir, "logs")))
	if !p.Network {
		b.WriteString("(deny network*)\n")
	}
	return b.String()
}

// containerArgs is the docker or podman command line, up to the program
// (which is looked up in the image): the project and the CLI's files at
// the same paths, .ralph/ read-only but for agentFiles, its logs hidden,
// the environment passed by name (values stay out of the command line), a
// label that lets a later start stop a container left behind.
func containerArgs(p Policy, dir string, env []string, stdin bool) []string {
	a := []string{p.Tool, "run", "--rm", "--init", "--name", p.Name, "--label", labelKey + "=" + p.Label}
	if stdin {
		a = append(a, "-i")
	}
	if !p.Network {
		a = append(a, "--network", "none")
	}
	a = append(a, "--user", fmt.Sprintf("%d:%d", p.UID, p.GID), "--tmpfs", "/tmp",
		"-v", p.Project+":"+p.Project, "-v", p.RalphDir+":"+p.RalphDir+":ro")
	for _, f := range agentFiles {
		if path := filepath.Join(p.RalphDir, f); exists(path) {
			a = append(a, "-v", path+":"+path)
		}
	}
	a = append(a, "--tmpfs", filepath.Join(p.RalphDir, "logs"))
	for _, f := range p.HomePaths {
		if path := filepath.Join(p.Home, f); p.Home != "" && exists(path) {
			a = append(a, "-v", path+":"+path)
		}
	}
	a = append(a, "-e", "HOME="+p.Home)
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "HOME", "PATH", "PWD", "OLDPWD", "SHLVL", "TMPDIR", "_":
			continue
		}
		a = append(a, "-e", k)
	}
	return append(a, "-w", dir, p.Image)
}

// labelKey is the label every container of the loop carries; its value is
// the project's root.
const labelKey = "ralph_loop.project"
