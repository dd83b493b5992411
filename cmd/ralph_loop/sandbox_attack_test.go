//go:build linux

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"

	"github.com/ralphloop/ralph_loop/internal/fakeagent"
)

// The sandbox is tried as an attacker would, on the real binary under the
// real bubblewrap, as root (CI runs as root; containers do) and as an
// unprivileged user (setpriv to unprivilegedUID): root is where a sandbox
// usually leaks.

// unprivilegedUID is the user the tests run the loop as when they run as
// root; it needs no account.
const unprivilegedUID = 4242

// sandboxUser is who runs the loop: root, or uid through setpriv (-1: the
// test's own user, who is not root).
type sandboxUser struct {
	name string
	uid  int
}

// sandboxUsers are root and an unprivileged user when the test runs as
// root (always so in CI: a run that is not root fails there rather than
// try half of it); only the test's own user otherwise.
func sandboxUsers(t *testing.T) []sandboxUser {
	t.Helper()
	needBwrap(t)
	if os.Geteuid() == 0 {
		if _, err := exec.LookPath("setpriv"); err != nil {
			t.Fatalf("setpriv (util-linux) is needed to run the loop as an unprivileged user: %v", err)
		}
		return []sandboxUser{{"root", -1}, {"user", unprivilegedUID}}
	}
	if inCI() {
		t.Fatal("the sandbox tests run as root in CI: as root, and as an unprivileged user through setpriv")
	}
	t.Log("not root: the sandbox is tried as this user only")
	return []sandboxUser{{"user", -1}}
}

// sandboxWorld is a project, a home and the programs a sandbox test runs,
// in a folder every user can reach.
type sandboxWorld struct {
	base, bin, home, proj string
	user                  sandboxUser
}

func newSandboxWorld(t *testing.T, u sandboxUser) *sandboxWorld {
	t.Helper()
	base, err := os.MkdirTemp("", "ralph-sandbox-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	w := &sandboxWorld{base: base, bin: filepath.Join(base, "bin"), home: filepath.Join(base, "home"), proj: filepath.Join(base, "proj"), user: u}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"ralph_loop", "sandbox-probe"} {
		copyProgram(t, exe, filepath.Join(w.bin, name))
	}
	mustWrite(t, filepath.Join(w.home, ".gitconfig"), "[user]\n\tname = Sandbox Tester\n\temail = tester@example.invalid\n[init]\n\tdefaultBranch = main\n")
	return w
}

// copyProgram puts the test binary at dst (a hard link when it can), as a
// program every user may run.
func copyProgram(t *testing.T, src, dst string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if os.Link(src, dst) == nil {
		return
	}
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// env is the loop's environment: the world's home and PATH, the test
// settings, and extra.
func (w *sandboxWorld) env(extra ...string) []string {
	path := strings.Join([]string{w.bin, filepath.Join(w.home, ".local/bin"), filepath.Join(w.home, ".cargo/bin"), "/usr/local/bin", "/usr/bin", "/bin"}, ":")
	env := []string{"HOME=" + w.home, "PATH=" + path, "TZ=UTC", "TERM=dumb", "GORACE=atexit_sleep_ms=0", "LOOP_DELAY=0", "WRITE_TIMEOUT_MINUTES=0", "LANG=C.UTF-8"}
	return append(env, extra...)
}

// git runs git in the project as the world's user.
func (w *sandboxWorld) git(t *testing.T, args ...string) string {
	t.Helper()
	cmd := w.as(w.env(), append([]string{"git"}, args...))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// own gives the whole world (but the programs in bin/) to the world's
// user, so that the project is theirs.
func (w *sandboxWorld) own(t *testing.T) {
	t.Helper()
	if w.user.uid < 0 {
		return
	}
	err := filepath.WalkDir(w.base, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == w.bin || filepath.Dir(p) == w.bin {
			return err
		}
		return os.Lchown(p, w.user.uid, w.user.uid)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// command is ralph_loop in the project, run as the world's user.
func (w *sandboxWorld) command(env []string, args ...string) *exec.Cmd {
	return w.as(env, append([]string{filepath.Join(w.bin, "ralph_loop")}, args...))
}

// as is argv in the project with env, run as the world's user (through
// setpriv when that is not the test's own).
func (w *sandboxWorld) as(env, argv []string) *exec.Cmd {
	if w.user.uid >= 0 {
		id := strconv.Itoa(w.user.uid)
		argv = append([]string{"setpriv", "--reuid=" + id, "--regid=" + id, "--clear-groups", "--"}, argv...)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = w.proj, env
	return cmd
}

// onTerminal runs cmd with a real pseudo-terminal as its stdin, stdout,
// stderr and controlling terminal, as a person at a terminal runs the
// loop. It returns what the terminal showed, the exit code, and the bytes
// waiting in the terminal's input when the loop had ended: keystrokes
// something injected, which the person's shell would run next.
func onTerminal(t *testing.T, cmd *exec.Cmd, limit time.Duration) (out string, code int, pending int) {
	t.Helper()
	master, slave, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer master.Close()
	defer slave.Close()
	// Not canonical: a keystroke counts as pending input at once, not
	// only once a line is complete.
	tio, err := unix.IoctlGetTermios(int(slave.Fd()), unix.TCGETS)
	if err != nil {
		t.Fatal(err)
	}
	tio.Lflag &^= unix.ICANON | unix.ECHO
	if err := unix.IoctlSetTermios(int(slave.Fd()), unix.TCSETS, tio); err != nil {
		t.Fatal(err)
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	var buf bytes.Buffer
	copied := make(chan struct{})
	go func() {
		io.Copy(&buf, master)
		close(copied)
	}()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(limit):
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
		t.Errorf("the loop did not end within %s", limit)
	}
	pending, err = unix.IoctlGetInt(int(slave.Fd()), unix.TIOCINQ)
	if err != nil {
		t.Fatal(err)
	}
	slave.Close()
	select {
	case <-copied:
	case <-time.After(5 * time.Second):
	}
	return buf.String(), cmd.ProcessState.ExitCode(), pending
}

// TestSandboxAttacks runs the real binary with --sandbox bwrap on a pty,
// as root and as an unprivileged user, in a hostile project: its agent
// (Claude Code, installed under $HOME as its installer does) and its gate
// try every way out the issue names; its .ralphrc names a fallback CLI,
// a notify hook and no output bound. Everything but the agent's own work
// is blocked, and the agent can still work: tick its plan with a
// rename-style write, add a spec, commit as the person.
func TestSandboxAttacks(t *testing.T) {
	t.Parallel() // it waits on the processes it starts: the scenarios run meanwhile
	for _, u := range sandboxUsers(t) {
		t.Run(u.name, func(t *testing.T) {
			t.Parallel()
			w := newSandboxWorld(t, u)
			tag := strconv.FormatInt(time.Now().UnixNano(), 36)
			outside := "/etc/ralph-sandbox-probe-" + tag
			rootFile := "/root/.ralph-sandbox-probe-" + tag
			if os.Geteuid() == 0 {
				mustWrite(t, rootFile, "ROOT-SECRET\n")
				t.Cleanup(func() { os.Remove(rootFile); os.Remove(outside) })
			}
			// The person's home: keys, tokens, credentials beside a
			// $PATH folder, another CLI's token, and Claude Code
			// installed as its installer does.
			secrets := map[string]string{
				".ssh/id_rsa":                       "PRIVATE-KEY-SECRET",
				".config/git/credentials":           "https://me:CRED-SECRET@github.com",
				".cargo/credentials.toml":           "[registry]\ntoken = \"CARGO-SECRET\"\n",
				".config/github-copilot/hosts.json": `{"github.com":{"oauth_token":"COPILOT-SECRET"}}`,
				".bashrc":                           "# mine\n",
				".claude.json":                      "{}\n",
				".claude/settings.json":             "{}\n",
			}
			for rel, content := range secrets {
				mustWrite(t, filepath.Join(w.home, rel), content)
			}
			f, err := os.OpenFile(filepath.Join(w.home, ".gitconfig"), os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprint(f, "[http]\n\textraHeader = \"AUTHORIZATION: bearer GITCONFIG-SECRET\"\n[credential]\n\thelper = store\n")
			f.Close()
			exe, _ := os.Executable()
			copyProgram(t, exe, filepath.Join(w.home, ".local/share/claude/versions/9.9.9"))
			copyProgram(t, exe, filepath.Join(w.home, ".cargo/bin/copilot"))
			if err := os.MkdirAll(filepath.Join(w.home, ".local/bin"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink("../share/claude/versions/9.9.9", filepath.Join(w.home, ".local/bin/claude")); err != nil {
				t.Fatal(err)
			}
			// The hostile project.
			mustWrite(t, filepath.Join(w.proj, ".ralph/PROMPT.md"), "Do the next task.\n")
			mustWrite(t, filepath.Join(w.proj, ".ralph/@fix_plan.md"), "# Fix Plan\n- [ ] Task 1\n- [ ] Task 2\n")
			mustWrite(t, filepath.Join(w.proj, ".ralph/@AGENT.md"), "# Agent\n")
			mustWrite(t, filepath.Join(w.proj, ".ralph/specs/a.md"), "# A\n")
			mustWrite(t, filepath.Join(w.proj, ".ralph/.ralphrc"), "FALLBACK_DRIVER=copilot\nNOTIFY_COMMAND=./notify.sh\nMAX_OUTPUT_MB=0\nTEST_COMMAND=\"sandbox-probe gate\"\n")
			mustWrite(t, filepath.Join(w.proj, "notify.sh"), "#!/bin/sh\necho ran > "+filepath.Join(w.base, "notify-ran")+"\n")
			if err := os.Chmod(filepath.Join(w.proj, "notify.sh"), 0o755); err != nil {
				t.Fatal(err)
			}
			mustWrite(t, filepath.Join(w.proj, ".gitignore"), "probe-*.json\n")
			w.own(t)
			w.git(t, "init", "-q", ".")
			w.git(t, "add", "-A")
			w.git(t, "commit", "-qm", "hostile project")

			// A system daemon's socket in /run (systemd's private one,
			// D-Bus's): its owner may connect, and root is the owner.
			sock := filepath.Join("/run", "ralph-sandbox-probe-"+tag+".sock")
			if os.Geteuid() != 0 {
				sock = filepath.Join(w.base, "run.sock") // no /run to write to: the test's own user's socket, under /tmp
			}
			l, err := net.Listen("unix", sock)
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			if u.uid >= 0 {
				if err := os.Chown(sock, u.uid, u.uid); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.Chmod(sock, 0o600); err != nil {
				t.Fatal(err)
			}
			dash := freeAddr(t)
			env := w.env(probeEnv+"=1", "RALPH_PROBE_OUTSIDE="+outside, "RALPH_PROBE_ROOT_FILE="+rootFile, "RALPH_PROBE_DASHBOARD="+dash,
				"SERVE_ADDR="+dash, "SERVE_TOKEN=loop-secret-0123456789abcdef", "NOTIFY_ON=all", "RALPH_PROBE_SOCKET="+sock)
			out, code, pending := onTerminal(t, w.command(env, "--sandbox", "bwrap", "--max-loops", "1", "--dashboard"), 2*time.Minute)
			if code != 4 {
				t.Fatalf("exit %d, want 4 (max loops):\n%s", code, out)
			}
			for _, line := range []string{"Sandbox: bwrap with ", "Sandbox: no capability, a user namespace (and none more inside), a session of its own (no terminal)",
				"NOTIFY_COMMAND ignored: with SANDBOX=bwrap", "MAX_OUTPUT_MB=0 ignored: ", "every request needs the token",
				"Sandbox: FALLBACK_DRIVER=copilot comes from the project's .ralphrc: copilot gets none of its files under $HOME"} {
				if !strings.Contains(out, line) {
					t.Errorf("the run does not say %q:\n%s", line, out)
				}
			}
			if pending != 0 {
				t.Errorf("%d bytes were injected into the person's terminal", pending)
			}
			if strings.Contains(out, "\x1b]52") {
				t.Error("a raw escape sequence (OSC 52) reached the person's terminal")
			}
			if _, err := os.Stat(filepath.Join(w.base, "notify-ran")); err == nil {
				t.Error("the project's NOTIFY_COMMAND ran outside the sandbox")
			}
			if _, err := os.Stat(outside); err == nil {
				t.Errorf("%s was written on the host", outside)
			}
			if b, _ := os.ReadFile(filepath.Join(w.home, ".bashrc")); string(b) != "# mine\n" {
				t.Errorf("~/.bashrc changed: %q", b)
			}

			blocked := []string{"read /etc/shadow", "read ~/.ssh/id_rsa", "read ~/.config/git/credentials", "read ~/.cargo/credentials.toml",
				"read ~/.config/github-copilot/hosts.json", "remount / read-write", "write outside the project", "unmount $HOME",
				"read ~/.ssh/id_rsa after the unmount", "a new user namespace", "open /dev/tty", "TIOCSTI", "write .ralph/status.json",
				"replace .ralph/status.json", "write the lock", "rename .ralph away", "read the dashboard", "connect to a system socket in /run"}
			if os.Geteuid() == 0 {
				blocked = append(blocked, "read a file in /root")
			}
			for _, role := range []string{"agent", "gate"} {
				var r probeReport
				b, err := os.ReadFile(filepath.Join(w.proj, "probe-"+role+".json"))
				if err != nil || json.Unmarshal(b, &r) != nil {
					t.Errorf("the %s did not report (%v):\n%s", role, err, out)
					continue
				}
				for _, k := range blocked {
					if !strings.HasPrefix(r[k], "blocked") {
						t.Errorf("%s: %s: %q", role, k, r[k])
					}
				}
				if r["capeff"] != "0000000000000000" || r["capbnd"] != "0000000000000000" || r["tty_nr"] != "0" {
					t.Errorf("%s: capabilities %s (bounding %s), controlling terminal %s", role, r["capeff"], r["capbnd"], r["tty_nr"])
				}
				if gc := r["~/.gitconfig"]; strings.Contains(gc, "SECRET") || strings.Contains(gc, "helper") || !strings.Contains(gc, "Sandbox Tester") {
					t.Errorf("%s: ~/.gitconfig is %q; want the identity only", role, gc)
				}
				if role == "agent" {
					for _, k := range []string{"sed -i .ralph/@fix_plan.md", "write .ralph/specs/new.md", "git commit"} {
						if r[k] != "ok" {
							t.Errorf("agent: %s: %q", k, r[k])
						}
					}
				}
			}
			if b, _ := os.ReadFile(filepath.Join(w.proj, ".ralph/@fix_plan.md")); !strings.Contains(string(b), "- [x] Task 1") {
				t.Errorf("the agent could not tick its plan:\n%s", b)
			}
			if log := w.git(t, "log", "--format=%an %s"); !strings.Contains(log, "Sandbox Tester agent commit") {
				t.Errorf("the agent's commit did not land as the person:\n%s", log)
			}
			var status map[string]any
			b, _ := os.ReadFile(filepath.Join(w.proj, ".ralph/status.json"))
			if json.Unmarshal(b, &status) != nil || status["exit_reason"] != "max_loops" {
				t.Errorf("status.json is not the loop's: %s", b)
			}
		})
	}
}

// TestSandboxedDashboardNeedsToken: --dashboard with a sandbox whose agent
// shares this machine's network, and no SERVE_TOKEN, is refused before
// anything runs or is written.
func TestSandboxedDashboardNeedsToken(t *testing.T) {
	t.Parallel()
	needBwrap(t)
	p := newLoopProject(t, 1, fakeagent.Script{})
	cmd := p.command(t, []string{"SERVE_ADDR=" + freeAddr(t)}, "--sandbox", "bwrap", "--dashboard", "--max-loops", "1")
	out, _ := cmd.CombinedOutput()
	if code := cmd.ProcessState.ExitCode(); code != 1 || !strings.Contains(string(out), "--dashboard with a sandbox needs SERVE_TOKEN") {
		t.Errorf("exit %d:\n%s", code, out)
	}
	if _, err := os.Stat(p.path(".ralph/logs")); err == nil {
		t.Error("the refused run wrote .ralph/logs")
	}
}

// TestSweepIdentities: the identity folder a run killed with kill -9 left
// behind is removed by the next run; a running one's is not.
func TestSweepIdentities(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	dead := filepath.Join(os.TempDir(), identityPrefix+strconv.Itoa(gone.Process.Pid)+"-1")
	live := filepath.Join(os.TempDir(), identityPrefix+strconv.Itoa(os.Getppid())+"-2")
	for _, d := range []string{dead, live} {
		mustWrite(t, filepath.Join(d, "gitconfig"), "[user]\n")
	}
	sweepIdentities()
	if _, err := os.Stat(dead); err == nil {
		t.Errorf("%s (pid gone) is left", dead)
	}
	if _, err := os.Stat(live); err != nil {
		t.Errorf("%s (pid running) was removed: %v", live, err)
	}
}
