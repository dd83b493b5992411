//go:build linux

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/ralphloop/ralph_loop/internal/fakeagent"
)

// probeEnv switches the test binary, run as claude or copilot, from the
// fake agent into sandboxProbe; the tests set it in the loop's
// environment, which the sandboxed agent inherits.
const probeEnv = "RALPH_SANDBOX_PROBE"

func init() {
	mainCmds["sandbox-probe"] = func() { os.Exit(sandboxProbe(os.Args[1:])) }
	for _, cli := range []string{"claude", "copilot"} {
		mainCmds[cli] = func() {
			if os.Getenv(probeEnv) == "" {
				fakeagent.Main()
			}
			os.Exit(sandboxProbe(os.Args[1:]))
		}
	}
}

// probeReport is what sandboxProbe tried and how each try ended:
// "blocked: …" or "ok: …" for a try that must fail or succeed, and the
// facts it saw ("uid", "capeff", …).
type probeReport map[string]string

// sandboxProbe is a hostile agent (or gate: its first argument names the
// role) inside the sandbox: it tries every way out the issue names and
// writes what happened to probe-ROLE.json in the project. As an agent it
// answers as Claude Code does; `--version` (asked only by --doctor, outside
// the sandbox) only prints a version.
func sandboxProbe(args []string) int {
	if slices.Contains(args, "--version") {
		fmt.Println("2.1.330 (Claude Code)")
		return 0
	}
	role := "agent"
	if len(args) > 0 && (args[0] == "gate" || args[0] == "hook") {
		role = args[0]
	}
	r := probeReport{}
	try := func(name string, err error) {
		if err != nil {
			r[name] = "blocked: " + err.Error()
		} else {
			r[name] = "SUCCEEDED"
		}
	}
	home, _ := os.UserHomeDir()

	r["uid"] = strconv.Itoa(os.Getuid())
	if st, err := os.ReadFile("/proc/self/status"); err == nil {
		for _, l := range strings.Split(string(st), "\n") {
			if k, v, ok := strings.Cut(l, ":\t"); ok && (k == "CapEff" || k == "CapBnd" || k == "CapPrm") {
				r[strings.ToLower(k)] = v
			}
		}
	}
	if st, err := os.ReadFile("/proc/self/stat"); err == nil {
		if i := bytes.LastIndexByte(st, ')'); i > 0 {
			if f := strings.Fields(string(st[i+1:])); len(f) > 4 {
				r["tty_nr"] = f[4] // 0: no controlling terminal
			}
		}
	}
	readSecret := func(name, path string) {
		b, err := os.ReadFile(path)
		if err == nil && len(bytes.TrimSpace(b)) == 0 {
			err = fmt.Errorf("empty")
		}
		try(name, err)
	}
	readSecret("read /etc/shadow", "/etc/shadow")
	if f := os.Getenv("RALPH_PROBE_ROOT_FILE"); f != "" {
		readSecret("read a file in /root", f)
	}
	readSecret("read ~/.ssh/id_rsa", filepath.Join(home, ".ssh/id_rsa"))
	readSecret("read ~/.config/git/credentials", filepath.Join(home, ".config/git/credentials"))
	readSecret("read ~/.cargo/credentials.toml", filepath.Join(home, ".cargo/credentials.toml"))
	readSecret("read ~/.config/github-copilot/hosts.json", filepath.Join(home, ".config/github-copilot/hosts.json"))
	gc, _ := os.ReadFile(filepath.Join(home, ".gitconfig"))
	r["~/.gitconfig"] = string(gc)

	if sock := os.Getenv("RALPH_PROBE_SOCKET"); sock != "" {
		c, err := net.DialTimeout("unix", sock, 5*time.Second)
		if err == nil {
			c.Close()
		}
		try("connect to a system socket in /run", err)
	}

	// Root's ways out of the mounts.
	try("remount / read-write", unix.Mount("", "/", "", unix.MS_REMOUNT|unix.MS_BIND, ""))
	if f := os.Getenv("RALPH_PROBE_OUTSIDE"); f != "" {
		try("write outside the project", os.WriteFile(f, []byte("pwned\n"), 0o644))
	}
	try("unmount $HOME", unix.Unmount(home, unix.MNT_DETACH))
	readSecret("read ~/.ssh/id_rsa after the unmount", filepath.Join(home, ".ssh/id_rsa"))
	try("a new user namespace", unix.Unshare(unix.CLONE_NEWUSER))

	// The person's terminal.
	tty, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
	try("open /dev/tty", err)
	fds := []int{0, 1, 2}
	if err == nil {
		_, _ = tty.WriteString("\x1b]52;c;cHduZWQ=\x07") // OSC 52, past the sanitiser
		fds = append(fds, int(tty.Fd()))
	}
	if pts, _ := filepath.Glob("/dev/pts/[0-9]*"); len(pts) > 0 {
		for _, p := range pts {
			if f, err := os.OpenFile(p, os.O_RDWR, 0); err == nil {
				fds = append(fds, int(f.Fd()))
			}
		}
	}
	var injected []string
	for _, fd := range fds {
		c := byte('#')
		if _, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), unix.TIOCSTI, uintptr(unsafe.Pointer(&c))); errno == 0 {
			injected = append(injected, strconv.Itoa(fd))
		}
	}
	if len(injected) > 0 {
		r["TIOCSTI"] = "SUCCEEDED on fd " + strings.Join(injected, ", ")
	} else {
		r["TIOCSTI"] = "blocked: on every fd (" + strconv.Itoa(len(fds)) + ")"
	}

	// The loop's files, and the agent's.
	try("write .ralph/status.json", os.WriteFile(".ralph/status.json", []byte("{}"), 0o644))
	_ = os.WriteFile(".ralph/status.json.new", []byte("{}"), 0o644)
	try("replace .ralph/status.json", os.Rename(".ralph/status.json.new", ".ralph/status.json"))
	try("write the lock", os.WriteFile(".ralph/logs/.ralph_loop.lock", []byte("99999"), 0o644))
	try("rename .ralph away", os.Rename(".ralph", ".ralph-moved"))
	if d := os.Getenv("RALPH_PROBE_DASHBOARD"); d != "" {
		c := http.Client{Timeout: 5 * time.Second}
		resp, err := c.Get("http://" + d + "/api/p/0/snapshot")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				err = fmt.Errorf("HTTP %d", resp.StatusCode)
			}
		}
		try("read the dashboard", err)
	}
	if role == "agent" {
		// sed -i: a new file renamed over the old one.
		plan, err := os.ReadFile(".ralph/@fix_plan.md")
		if err == nil {
			tmp := ".ralph/sedXXXXXX"
			err = os.WriteFile(tmp, bytes.Replace(plan, []byte("- [ ]"), []byte("- [x]"), 1), 0o644)
			if err == nil {
				err = os.Rename(tmp, ".ralph/@fix_plan.md")
			}
		}
		r["sed -i .ralph/@fix_plan.md"] = okOr(err)
		r["write .ralph/specs/new.md"] = okOr(os.WriteFile(".ralph/specs/new.md", []byte("# new\n"), 0o644))
		_ = os.WriteFile("agent-work.txt", []byte("work\n"), 0o644)
		out, err := exec.Command("git", "add", "-A").CombinedOutput()
		if err == nil {
			out, err = exec.Command("git", "commit", "-qm", "agent commit").CombinedOutput()
		}
		if err != nil {
			err = fmt.Errorf("%v: %s", err, bytes.TrimSpace(out))
		}
		r["git commit"] = okOr(err)
	}
	b, _ := json.MarshalIndent(r, "", "  ")
	_ = os.WriteFile("probe-"+role+".json", b, 0o644)
	if role == "agent" {
		fmt.Println(fakeagent.ClaudeJSON("Tried every way out.\n"+fakeagent.StatusBlock("IN_PROGRESS", false, 1), "probe-session"))
	}
	return 0
}

func okOr(err error) string {
	if err != nil {
		return "FAILED: " + err.Error()
	}
	return "ok"
}
