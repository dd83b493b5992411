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

// fixture is a project, a home with a CLI's folder and a private key, and
// a tool installed under home.
func fixture(t *testing.T) (Policy, string) {
	root := t.TempDir()
	for _, d := range []string{"home/me/.claude", "home/me/.ssh", "home/me/.nvm/bin", "work/app/.ralph/specs", "work/app/.ralph/logs"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"home/me/.claude.json", "home/me/.gitconfig", "home/me/.nvm/bin/claude", "work/app/.ralph/@fix_plan.md"} {
		if err := os.WriteFile(filepath.Join(root, f), nil, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	home := filepath.Join(root, "home/me")
	return Policy{Tool: "/usr/bin/bwrap", Project: filepath.Join(root, "work/app"), RalphDir: filepath.Join(root, "work/app/.ralph"),
		Home: home, HomePaths: []string{".claude", ".claude.json", ".missing"},
		Path: home + "/.nvm/bin:" + home + "/.ssh:/usr/bin", Network: true, Image: "agent:1", UID: 1000, GID: 1000,
		Name: "ralph_loop-1-1", Label: filepath.Join(root, "work/app")}, root
}

// relative replaces the fixture's root with ROOT, so goldens do not
// depend on the temporary folder.
func relative(root string, args []string) string {
	return strings.ReplaceAll(strings.Join(args, "\n"), root, "ROOT") + "\n"
}

func TestBwrapArgs(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", "")
	p, root := fixture(t)
	args := bwrapArgs(p, p.Project, filepath.Join(p.Home, ".nvm/bin/claude"))
	got := relative(root, args)
	// Hidden sockets depend on the machine; the rest is the golden.
	var kept []string
	for _, l := range strings.Split(got, "\n") {
		if !strings.HasSuffix(l, ".sock") {
			kept = append(kept, l)
		}
	}
	golden(t, "bwrap.golden", strings.Join(kept, "\n"))
	for _, bad := range []string{".ssh", ".missing"} {
		if strings.Contains(got, bad) {
			t.Errorf("bwrap binds %s:\n%s", bad, got)
		}
	}
	p.Network = false
	if !slices.Contains(bwrapArgs(p, p.Project, ""), "--unshare-net") {
		t.Error("SANDBOX_NETWORK=false does not unshare the network")
	}
}

func TestSeatbeltProfile(t *testing.T) {
	p, root := fixture(t)
	p.Network = false
	golden(t, "seatbelt.golden", strings.ReplaceAll(seatbeltProfile(p, filepath.Join(p.Home, ".nvm/bin/claude")), root, "ROOT"))
	p.Home = `/Users/a "quoted" \ name`
	if prof := seatbeltProfile(p, ""); !strings.Contains(prof, `(subpath "/Users/a \"quoted\" \\ name")`) {
		t.Errorf("a quote in a path is not escaped:\n%s", prof)
	}
}

func TestContainerArgs(t *testing.T) {
	p, root := fixture(t)
	env := []string{"PATH=/usr/bin", "HOME=/x", "ANTHROPIC_API_KEY=sk-123", "TERM=xterm"}
	p.Tool = "/usr/bin/podman"
	got := relative(root, containerArgs(p, p.Project, env, true))
	golden(t, "container.golden", got)
	if strings.Contains(got, "sk-123") {
		t.Errorf("an environment value is on the command line:\n%s", got)
	}
}

func TestEnv(t *testing.T) {
	in := []string{"PATH=/bin", "SERVE_TOKEN=s", "NOTIFY_WEBHOOK=https://x", "SSH_AUTH_SOCK=/tmp/a", "IS_SANDBOX=0", "ANTHROPIC_API_KEY=k"}
	if got, want := env(in, true), []string{"PATH=/bin", "ANTHROPIC_API_KEY=k", "IS_SANDBOX=1"}; !slices.Equal(got, want) {
		t.Errorf("Env(root) = %q, want %q", got, want)
	}
	if got, want := env(in, false), []string{"PATH=/bin", "ANTHROPIC_API_KEY=k"}; !slices.Equal(got, want) {
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
	if slices.Contains(w.Env, "SERVE_TOKEN=s") || cleanup != nil {
		t.Errorf("env %q, cleanup %v", w.Env, cleanup != nil)
	}
	p.Mode = Off
	if _, _, err := Wrap(p, supervise.Command{Argv: []string{"x"}}, look); err == nil {
		t.Error("Wrap with SANDBOX=off did not fail")
	}
}

// TestDescribe: --doctor's and --dry-run's lines on the sandbox name the
// mode and its tool, what the agent may write, what it cannot see and the
// variables it does not get.
func TestDescribe(t *testing.T) {
	p := Policy{Mode: Container, Tool: "/usr/bin/podman", Image: "img", Project: "/p", HomePaths: []string{".claude", ".claude.json"}}
	want := []string{
		"container (podman, image img) with /usr/bin/podman; network off",
		"writable: /p (with .git), and in .ralph/ only @fix_plan.md, @AGENT.md, specs",
		"hidden: $HOME except ~/.claude, ~/.claude.json (read-write) and your git identity (read-only); .ralph/logs (the logs and the lock)",
		"kept from its environment: SERVE_TOKEN, NOTIFY_WEBHOOK, NOTIFY_COMMAND, SSH_AUTH_SOCK, GPG_AGENT_INFO",
	}
	if got := p.Describe(); !slices.Equal(got, want) {
		t.Errorf("Describe() =\n%q\nwant\n%q", got, want)
	}
	p = Policy{Mode: bwrap, Tool: "/usr/bin/bwrap", Project: "/p", Network: true}
	if got := p.Describe(); got[0] != "bwrap with /usr/bin/bwrap; network on (the agent reaches its API)" ||
		got[2] != "hidden: $HOME except your git identity (read-only); .ralph/logs (the logs and the lock)" {
		t.Errorf("Describe() = %q", got)
	}
}
