package sandbox

import (
	"context"
	"fmt"
	"os"
	"os/exec"
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
