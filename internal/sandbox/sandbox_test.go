package sandbox

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ralphloop/ralph_loop/drivers"
	"github.com/ralphloop/ralph_loop/internal/supervise"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./internal/sandbox -update writes it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s differs (-want +got):\n%s", path, diff)
	}
}

func TestResolve(t *testing.T) {
	have := func(tools ...string) func(string) (string, error) {
		return func(name string) (string, error) {
			if slices.Contains(tools, name) {
				return "/usr/bin/" + name, nil
			}
			return "", errors.New("not found")
		}
	}
	cases := []struct {
		mode, goos, engine string
		look               func(string) (string, error)
		want, tool, err    string
	}{
		{"off", "linux", "", have(), "off", "", ""},
		{"bwrap", "linux", "", have("bwrap"), "bwrap", "/usr/bin/bwrap", ""},
		{"bwrap", "linux", "", have(), "", "", "SANDBOX=bwrap needs bwrap, which is not on PATH; install bubblewrap (apt-get install bubblewrap, dnf install bubblewrap), or set SANDBOX=off"},
		{"bwrap", "darwin", "", have("bwrap"), "", "", "SANDBOX=bwrap works on Linux only; on darwin use SANDBOX=seatbelt"},
		{"seatbelt", "darwin", "", have("sandbox-exec"), "seatbelt", "/usr/bin/sandbox-exec", ""},
		{"seatbelt", "linux", "", have("sandbox-exec"), "", "", "SANDBOX=seatbelt works on macOS only; on linux use SANDBOX=bwrap"},
		{"container", "linux", "", have("podman"), "container", "/usr/bin/podman", ""},
		{"container", "linux", "", have("docker", "podman"), "container", "/usr/bin/docker", ""},
		{"container", "linux", "podman", have("docker", "podman"), "container", "/usr/bin/podman", ""},
		{"container", "windows", "", have(), "", "", "SANDBOX=container needs docker or podman, which is not on PATH; install Docker or Podman (apt-get install podman), or set SANDBOX=off"},
		{"auto", "linux", "", have("bwrap", "docker"), "bwrap", "/usr/bin/bwrap", ""},
		{"auto", "linux", "", have("docker"), "container", "/usr/bin/docker", ""},
		{"auto", "darwin", "", have("sandbox-exec"), "seatbelt", "/usr/bin/sandbox-exec", ""},
		{"auto", "windows", "", have(), "", "", "SANDBOX=auto found no sandbox on this machine: install bubblewrap (Linux: apt-get install bubblewrap), Docker or Podman, or set SANDBOX=off"},
		{"chroot", "linux", "", have(), "", "", `SANDBOX="chroot" is not a sandbox mode; use one of off, bwrap, seatbelt, container, auto`},
	}
	for _, c := range cases {
		mode, tool, err := Resolve(c.mode, c.goos, c.engine, c.look)
		msg := ""
		if err != nil {
			msg = err.Error()
		}
		if mode != c.want || tool != c.tool || msg != c.err {
			t.Errorf("Resolve(%q, %q, %q) = %q, %q, %q; want %q, %q, %q", c.mode, c.goos, c.engine, mode, tool, msg, c.want, c.tool, c.err)
		}
	}
}

// fixture is a project, a home with the agent CLI's folder, a private key,
// credentials beside a $PATH folder (~/.cargo) and in git's folder, and
// the CLI installed under home as Claude Code's installer does
// (~/.local/bin/claude, a link to a release under ~/.local/share). The
// system's secrets and sockets are the fixture's own.
func fixture(t *testing.T) (Policy, string) {
	root := t.TempDir()
	for _, d := range []string{"home/me/.claude", "home/me/.ssh", "home/me/.cargo/bin", "home/me/.config/git", "home/me/.local/bin",
		"home/me/.local/share/claude/versions", "work/app/.ralph/specs", "work/app/.ralph/logs", "etc/sudoers.d"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"home/me/.claude.json", "home/me/.gitconfig", "home/me/.cargo/credentials.toml", "home/me/.config/git/credentials",
		"home/me/.local/share/claude/versions/2.0.1", "home/me/.local/bin/other-tool", "work/app/.ralph/@fix_plan.md", "work/app/.ralph/PROMPT.md",
		"work/app/.ralph/status.json", "work/app/.ralph/.circuit_breaker_state", "etc/shadow", "etc/ssh/ssh_host_ed25519_key", "etc/ssh/ssh_host_ed25519_key.pub"} {
		mustWrite(t, filepath.Join(root, f), "")
	}
	if err := os.Symlink("../share/claude/versions/2.0.1", filepath.Join(root, "home/me/.local/bin/claude")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/etc/passwd", filepath.Join(root, "work/app/.ralph/.call_count")); err != nil {
		t.Fatal(err)
	}
	mustWrite(t, filepath.Join(root, "run/systemd/resolve/stub-resolv.conf"), "nameserver 127.0.0.53\n")
	if err := os.Symlink("../run/systemd/resolve/stub-resolv.conf", filepath.Join(root, "etc/resolv.conf")); err != nil {
		t.Fatal(err)
	}
	setMasks(t, []string{filepath.Join(root, "etc/shadow"), filepath.Join(root, "etc/gshadow")},
		[]string{filepath.Join(root, "etc/ssh/ssh_host_*_key")}, []string{filepath.Join(root, "etc/sudoers.d"), filepath.Join(root, "root")}, nil)
	setRun(t, []string{filepath.Join(root, "run"), filepath.Join(root, "var/run")}, filepath.Join(root, "etc/resolv.conf"))
	home := filepath.Join(root, "home/me")
	return Policy{Tool: "/usr/bin/bwrap", Project: filepath.Join(root, "work/app"), RalphDir: filepath.Join(root, "work/app/.ralph"),
		Home: home, Agents: []Agent{{Program: home + "/.local/bin/claude", Home: []drivers.HomePath{{Path: ".claude", Write: true}, {Path: ".claude.json", Write: true}, {Path: ".missing", Write: true}}},
			{Program: "/usr/bin/copilot", Home: []drivers.HomePath{{Path: ".config/github-copilot"}}}},
		GitConfig: filepath.Join(root, "tmp/identity/gitconfig"),
		Path:      home + "/.local/bin:" + home + "/.cargo/bin:" + home + "/.ssh:/usr/bin", Network: true, UserNS: true, NoMoreUserNS: true, Image: "agent:1", UID: 1000, GID: 1000,
		Name: "ralph_loop-1-1", Label: filepath.Join(root, "work/app")}, root
}

func mustWrite(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o755); err != nil {
		t.Fatal(err)
	}
}

// setMasks replaces the system's secret files, folders and the engines'
// sockets with the test's for its duration.
func setMasks(t *testing.T, files, globs, dirs, sockets []string) {
	old := [][]string{maskedFiles, maskedGlobs, maskedDirs, hiddenSockets}
	maskedFiles, maskedGlobs, maskedDirs, hiddenSockets = files, globs, dirs, sockets
	t.Cleanup(func() { maskedFiles, maskedGlobs, maskedDirs, hiddenSockets = old[0], old[1], old[2], old[3] })
}

// setRun replaces runDirs and resolvConf with the test's for its duration.
func setRun(t *testing.T, dirs []string, resolv string) {
	oldDirs, oldResolv := runDirs, resolvConf
	runDirs, resolvConf = dirs, resolv
	t.Cleanup(func() { runDirs, resolvConf = oldDirs, oldResolv })
}

// relative replaces the fixture's root with ROOT, so goldens do not
// depend on the temporary folder.
func relative(root string, args []string) string {
	return strings.ReplaceAll(strings.Join(args, "\n"), root, "ROOT") + "\n"
}

// TestBwrapArgs: the whole bubblewrap command line for Claude Code
// installed under $HOME: no capability, a user namespace, a session of its
// own; the system's secrets masked; of $HOME only the CLI's program (its
// link and its release folder), its own files and the generated identity;
// the project and .ralph/ writable but the loop's own files, read-only
// over themselves; the logs hidden.
func TestBwrapArgs(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", "")
	p, root := fixture(t)
	prog := filepath.Join(p.Home, ".local/bin/claude")
	args := bwrapArgs(p, p.Project, prog, nil)
	got := relative(root, args)
	golden(t, "bwrap.golden", got)
	for _, bad := range []string{".ssh", ".missing", ".cargo", "credentials", ".config", "other-tool", "PROMPT.md", "@fix_plan.md", ".call_count", "github-copilot", ".pub"} {
		if strings.Contains(got, bad) {
			t.Errorf("bwrap shows %s:\n%s", bad, got)
		}
	}
	for _, b := range bindSources(args) {
		if b == filepath.Join(p.Home, ".gitconfig") || b == filepath.Join(p.Home, ".local") || b == filepath.Join(p.Home, ".local/bin") {
			t.Errorf("bwrap binds %s", b)
		}
	}
	p.Read = []string{filepath.Join(p.Home, ".cargo/bin"), filepath.Join(p.Home, ".rustup")}
	if args := bwrapArgs(p, p.Project, "/usr/bin/bash", nil); !slices.Contains(bindSources(args), p.Read[0]) || slices.Contains(bindSources(args), p.Read[1]) {
		t.Errorf("SANDBOX_READ: %q", bindSources(args))
	}
	p.Read = nil
	p.Network, p.UserNS = false, false
	args = bwrapArgs(p, p.Project, "/usr/bin/bash", nil)
	if !slices.Contains(args, "--unshare-net") || slices.Contains(args, "--unshare-user") || !slices.Contains(args, "--cap-drop") {
		t.Errorf("SANDBOX_NETWORK=false without a user namespace: %q", args)
	}
	if got := relative(root, args); strings.Contains(got, ".claude") {
		t.Errorf("a gate (bash) gets the CLI's files:\n%s", got)
	}
}

// TestBwrapFreshCheckout: a checkout without .ralph/logs (the merge
// queue's gates) or without .ralph/ at all still makes a command line that
// creates nothing in them.
func TestBwrapFreshCheckout(t *testing.T) {
	p, _ := fixture(t)
	if err := os.RemoveAll(filepath.Join(p.RalphDir, "logs")); err != nil {
		t.Fatal(err)
	}
	if args := strings.Join(bwrapArgs(p, p.Project, "/usr/bin/bash", nil), " "); strings.Contains(args, "logs") {
		t.Errorf("a missing logs/ is mounted over: %s", args)
	}
	if err := os.RemoveAll(p.RalphDir); err != nil {
		t.Fatal(err)
	}
	if args := strings.Join(bwrapArgs(p, p.Project, "/usr/bin/bash", nil), " "); strings.Contains(args, ".ralph") {
		t.Errorf("a missing .ralph/ is mounted over: %s", args)
	}
}

// bindSources are the sources of args' binds.
func bindSources(args []string) []string {
	var out []string
	for i, a := range args {
		if (a == "--bind" || a == "--ro-bind") && i+1 < len(args) {
			out = append(out, args[i+1])
		}
	}
	return out
}

func TestSeatbeltProfile(t *testing.T) {
	p, root := fixture(t)
	p.Network = false
	golden(t, "seatbelt.golden", strings.ReplaceAll(seatbeltProfile(p, filepath.Join(p.Home, ".local/bin/claude"), nil), root, "ROOT"))
	p.Home = `/Users/a "quoted" \ name`
	if prof := seatbeltProfile(p, "", nil); !strings.Contains(prof, `(subpath "/Users/a \"quoted\" \\ name")`) {
		t.Errorf("a quote in a path is not escaped:\n%s", prof)
	}
}

func TestContainerArgs(t *testing.T) {
	p, root := fixture(t)
	env := []string{"PATH=/usr/bin", "HOME=/x", "ANTHROPIC_API_KEY=sk-123", "TERM=xterm"}
	p.Tool = "/usr/bin/podman"
	got := relative(root, containerArgs(p, p.Project, "claude", env, true))
	golden(t, "container.golden", got)
	if strings.Contains(got, "sk-123") {
		t.Errorf("an environment value is on the command line:\n%s", got)
	}
	if gate := relative(root, containerArgs(p, p.Project, "bash", env, false)); strings.Contains(gate, ".claude") {
		t.Errorf("a gate gets the CLI's files:\n%s", gate)
	}
}

func TestEnv(t *testing.T) {
	in := []string{"PATH=/bin", "SERVE_TOKEN=s", "NOTIFY_WEBHOOK=https://x", "SSH_AUTH_SOCK=/tmp/a", "IS_SANDBOX=0", "ANTHROPIC_API_KEY=k", "GIT_CONFIG_GLOBAL=/home/me/.gitconfig-work"}
	if got, want := env(in, true, "GIT_CONFIG_GLOBAL=/home/me/.gitconfig"), []string{"PATH=/bin", "ANTHROPIC_API_KEY=k", "IS_SANDBOX=1", "GIT_CONFIG_GLOBAL=/home/me/.gitconfig"}; !slices.Equal(got, want) {
		t.Errorf("Env(root) = %q, want %q", got, want)
	}
	if got, want := env(in, false, ""), []string{"PATH=/bin", "ANTHROPIC_API_KEY=k", "GIT_CONFIG_GLOBAL=/home/me/.gitconfig-work"}; !slices.Equal(got, want) {
		t.Errorf("Env = %q, want %q", got, want)
	}
}

func TestWrap(t *testing.T) {
	p, _ := fixture(t)
	p.Mode = bwrap
	look := func(string) (string, error) { return "/usr/bin/claude", nil }
	w, cleanup, err := Wrap(p, supervise.Command{Argv: []string{"claude", "-p", "x"}, Env: []string{"SERVE_TOKEN=s"}, Dir: p.Project}, look)
	if err != nil {
		t.Fatal(err)
	}
	n := len(w.Argv)
	if w.Argv[0] != "/usr/bin/bwrap" || !slices.Equal(w.Argv[n-4:], []string{"--", "/usr/bin/claude", "-p", "x"}) {
		t.Errorf("argv %q", w.Argv)
	}
	if slices.Contains(w.Env, "SERVE_TOKEN=s") || cleanup != nil || !w.NewSession {
		t.Errorf("env %q, cleanup %v, new session %v", w.Env, cleanup != nil, w.NewSession)
	}
	if !slices.Contains(w.Env, "GIT_CONFIG_GLOBAL="+filepath.Join(p.Home, ".gitconfig")) {
		t.Errorf("env %q: no GIT_CONFIG_GLOBAL for the identity", w.Env)
	}
	p.Mode = Off
	if _, _, err := Wrap(p, supervise.Command{Argv: []string{"x"}}, look); err == nil {
		t.Error("Wrap with SANDBOX=off did not fail")
	}
}

// TestDescribe: --doctor's, --dry-run's and the run's lines on the sandbox
// name the mode and its tool, what confines the process, what the agent
// may write, what it cannot see and the variables it does not get.
func TestDescribe(t *testing.T) {
	p := Policy{Mode: Container, Tool: "/usr/bin/podman", Image: "img", Project: "/p", GitConfig: "x",
		Agents: []Agent{{Program: "/usr/bin/claude", Home: []drivers.HomePath{{Path: ".claude", Write: true}, {Path: ".claude.json", Write: true}}}}}
	want := []string{
		"container (podman, image img) with /usr/bin/podman; network off (loopback of its own only)",
		"no capability, a session of its own (no terminal)",
		"writable: /p (with .git) and .ralph/ but the loop's own files (read-only) and .ralph/logs (hidden)",
		"hidden: $HOME except ~/.claude (read-write, to claude only), ~/.claude.json (read-write, to claude only), the agent's program (read-only), your git identity (user.name, user.email only)",
		"kept from its environment: SERVE_TOKEN, NOTIFY_WEBHOOK, NOTIFY_COMMAND, SSH_AUTH_SOCK, GPG_AGENT_INFO",
	}
	if got := p.Describe(); !slices.Equal(got, want) {
		t.Errorf("Describe() =\n%q\nwant\n%q", got, want)
	}
	p = Policy{Mode: bwrap, Tool: "/usr/bin/bwrap", Project: "/p", Network: true, UserNS: true, NoMoreUserNS: true,
		Git: WorktreeGit{Dir: "/r/.git/worktrees/worker-1", Common: "/r/.git", Branch: "refs/heads/swarm", Write: true}}
	got := p.Describe()
	if got[0] != "bwrap with /usr/bin/bwrap; network on (the agent reaches its API, and this machine's loopback: docs/SANDBOX.md)" ||
		got[1] != "no capability, a user namespace (and none more inside), a session of its own (no terminal)" ||
		!strings.HasSuffix(got[2], "; in /r/.git only worktrees/worker-1, objects/, refs/heads/swarm/ (its branch's folder) (the repository's config, hooks and other refs read-only)") ||
		got[3] != "hidden: $HOME except the agent's program (read-only); /etc/shadow-class files and root's home" {
		t.Errorf("Describe() = %q", got)
	}
}

// TestProgramBinds: of a CLI installed under $HOME the sandbox shows the
// program and what it runs from, never the folders around it: a file in a
// $PATH folder alone; a link and the folder of the release it leads to; an
// npm package's folder and the node its #! line finds on $PATH; a pipx
// virtualenv (the folder above bin/); a link into $HOME itself or into a
// folder just below it, the file alone.
func TestProgramBinds(t *testing.T) {
	root := t.TempDir()
	home := filepath.Join(root, "home")
	w := func(rel, content string) string {
		mustWrite(t, filepath.Join(home, rel), content)
		return filepath.Join(home, rel)
	}
	link := func(target, rel string) string {
		p := filepath.Join(home, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	codex := w(".cargo/bin/codex", "\x7fELF")
	w(".cargo/credentials.toml", "token")
	node := w(".nvm/versions/node/v20/bin/node", "\x7fELF")
	w(".nvm/versions/node/v20/lib/node_modules/@anthropic-ai/claude-code/cli.js", "#!/usr/bin/env node\nconsole.log(1)\n")
	npmClaude := link("../lib/node_modules/@anthropic-ai/claude-code/cli.js", ".nvm/versions/node/v20/bin/claude")
	w(".local/share/pipx/venvs/aider/bin/aider", "#!"+filepath.Join(home, ".local/share/pipx/venvs/aider/bin/python")+"\n")
	link("/usr/bin/python3", ".local/share/pipx/venvs/aider/bin/python")
	aider := link("../share/pipx/venvs/aider/bin/aider", ".local/bin/aider")
	w("tool", "\x7fELF")
	inHome := link("../../tool", ".local/bin/tool")
	p := Policy{Home: home, Project: filepath.Join(root, "proj"),
		Path: strings.Join([]string{filepath.Join(home, ".local/bin"), filepath.Join(home, ".cargo/bin"), filepath.Join(home, ".nvm/versions/node/v20/bin"), "/usr/bin"}, ":")}
	look := func(name string) (string, error) {
		if name == "node" {
			return node, nil
		}
		return "", errors.New("not found")
	}
	rel := func(bs []progBind) []string {
		var out []string
		for _, b := range bs {
			s := strings.TrimPrefix(b.path, home+"/")
			if b.link != "" {
				s += " -> " + b.link
			}
			out = append(out, s)
		}
		return out
	}
	for _, tc := range []struct {
		prog string
		want []string
	}{
		{codex, []string{".cargo/bin/codex"}},
		{npmClaude, []string{".nvm/versions/node/v20/bin/claude -> ../lib/node_modules/@anthropic-ai/claude-code/cli.js",
			".nvm/versions/node/v20/lib/node_modules/@anthropic-ai/claude-code", ".nvm/versions/node/v20/bin/node"}},
		{aider, []string{".local/bin/aider -> ../share/pipx/venvs/aider/bin/aider", ".local/share/pipx/venvs/aider",
			".local/share/pipx/venvs/aider/bin/python -> /usr/bin/python3"}},
		{inHome, []string{".local/bin/tool -> ../../tool", "tool"}},
		{"/usr/bin/env", nil},
	} {
		if got := rel(p.programBinds(tc.prog, look)); !slices.Equal(got, tc.want) {
			t.Errorf("programBinds(%s) = %q, want %q", strings.TrimPrefix(tc.prog, home+"/"), got, tc.want)
		}
	}
}
