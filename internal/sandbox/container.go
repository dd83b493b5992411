package sandbox

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/ralphloop/ralph_loop/internal/supervise"
)

// cleanupTimeout bounds each docker or podman command the loop runs to stop
// a container.
const cleanupTimeout = 15 * time.Second

// engineCmd runs one docker or podman command and returns its output.
func engineCmd(tool string, args ...string) string {
	ctx, cancel := context.WithTimeout(context.Background(), cleanupTimeout)
	defer cancel()
	var out strings.Builder
	supervise.Run(ctx, supervise.Command{Argv: append([]string{tool}, args...)},
		supervise.Options{Grace: time.Second, Stdout: &out, MaxOutput: 1 << 20})
	return out.String()
}

// containerCleanup stops the call's container: a stopped or killed
// `docker run` leaves it running.
func containerCleanup(p Policy) func() {
	return func() {
		engineCmd(p.Tool, "kill", p.Name)
		engineCmd(p.Tool, "rm", "-f", p.Name)
	}
}

// Watch starts the watcher of one container call, for when the loop dies
// without cleaning up (kill -9): a shell in a session of its own that
// kills the container once the loop's pid is gone. It is the one process
// the loop leaves behind by design, for as long as the container may still
// run. The returned func stops the watcher (after a normal cleanup); Watch
// does nothing but for SANDBOX=container.
func Watch(p Policy) func() {
	sh, err := exec.LookPath("sh")
	if p.Mode != Container || err != nil {
		return func() {}
	}
	script := `while kill -0 "$1" 2>/dev/null; do sleep 2; done; "$2" kill "$3" >/dev/null 2>&1; "$2" rm -f "$3" >/dev/null 2>&1`
	cmd := exec.Command(sh, "-c", script, "ralph_loop-container-watch", strconv.Itoa(os.Getpid()), p.Tool, p.Name)
	detach(cmd)
	if cmd.Start() != nil {
		return func() {}
	}
	return func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}
}

// Sweep stops the containers a previous run of this project left behind
// (the label names the project) and says how many it stopped.
func Sweep(tool, label string) (int, error) {
	ids := strings.Fields(engineCmd(tool, "ps", "-q", "--filter", "label="+labelKey+"="+label))
	for _, id := range ids {
		engineCmd(tool, "kill", id)
		engineCmd(tool, "rm", "-f", id)
	}
	if left := strings.Fields(engineCmd(tool, "ps", "-q", "--filter", "label="+labelKey+"="+label)); len(left) > 0 {
		return len(ids), fmt.Errorf("%d container(s) of an earlier run still running (%s); stop them with %s kill %s", len(left), strings.Join(left, " "), tool, strings.Join(left, " "))
	}
	return len(ids), nil
}

// containerArgs is the docker or podman command line, up to the program
// (which is looked up in the image): no capability and no new privilege;
// the project and the CLI's files at the same paths, .ralph/'s loop-owned
// files read-only, its logs hidden, the repository's git folders of a
// linked worktree, the generated git identity as ~/.gitconfig; the
// environment passed by name (values stay out of the command line); a
// label that lets a later start stop a container left behind. The image
// has its own programs: an agent CLI's files go to a command whose program
// has the CLI's name (name, Argv[0]).
func containerArgs(p Policy, dir, name string, env []string, stdin bool) []string {
	a := []string{p.Tool, "run", "--rm", "--init", "--name", p.Name, "--label", labelKey + "=" + p.Label,
		"--cap-drop", "ALL", "--security-opt", "no-new-privileges"}
	if stdin {
		a = append(a, "-i")
	}
	if !p.Network {
		a = append(a, "--network", "none")
	}
	a = append(a, "--user", fmt.Sprintf("%d:%d", p.UID, p.GID), "--tmpfs", "/tmp", "-v", p.Project+":"+p.Project)
	if p.ralphDirExists() {
		for _, f := range p.loopOwned() {
			a = append(a, "-v", f+":"+f+":ro")
		}
		if logs := p.logsDir(); logs != "" {
			a = append(a, "--tmpfs", logs+":ro")
		}
	}
	for _, m := range p.Git.mounts(p.Project) {
		v := m.path + ":" + m.path
		if !m.write {
			v += ":ro"
		}
		a = append(a, "-v", v)
	}
	for _, ag := range p.Agents {
		if filepath.Base(ag.Program) != filepath.Base(name) {
			continue
		}
		for _, h := range ag.Home {
			path := filepath.Join(p.Home, h.Path)
			if p.Home == "" || p.Home == "/" || !exists(path) {
				continue
			}
			v := path + ":" + path
			if !h.Write {
				v += ":ro"
			}
			a = append(a, "-v", v)
		}
	}
	if p.GitConfig != "" {
		a = append(a, "-v", p.GitConfig+":"+filepath.Join(p.Home, ".gitconfig")+":ro")
	}
	for _, r := range p.Read {
		if exists(r) {
			a = append(a, "-v", r+":"+r+":ro")
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
