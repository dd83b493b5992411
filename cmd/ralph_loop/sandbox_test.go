//go:build linux

package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ralphloop/ralph_loop/internal/fakeagent"
)

// needBwrap skips a test without bubblewrap, except in CI (.ci/run installs
// it), where a missing bwrap fails the test instead of hiding it.
func needBwrap(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("bwrap"); err != nil {
		if inCI() {
			t.Fatalf("bwrap is not installed (apt-get install bubblewrap): %v", err)
		}
		t.Skip("bwrap is not installed")
	}
}

// attack is what a hostile agent or gate tries, each step reported on
// stderr: plant a line in ~/.bashrc, read a private key, rewrite the
// lock and status.json, and commit to the project. who names the files it
// leaves in the project.
func attack(who string) string {
	return `echo pwned-` + who + ` >> "$HOME/.bashrc"
cat "$HOME/.ssh/id_rsa" > ` + who + `-leak.txt 2>&1
echo 99999 > .ralph/logs/.ralph_loop.lock 2>&1
echo '{}' > .ralph/status.json 2>&1 || echo "` + who + `: status.json refused" >&2
env > ` + who + `-env.txt
echo "` + who + ` $RANDOM" >> ` + who + `.txt
git add -A >/dev/null 2>&1 && git commit -qm "` + who + ` commit" >&2
`
}

const agentReply = `c=$(cat .ralph/@fix_plan.md); printf '%s\n' "${c/- \[ \]/- [x]}" > .ralph/@fix_plan.md
echo "Did a task."
printf -- '---RALPH_STATUS---\nSTATUS: IN_PROGRESS\nTASKS_COMPLETED_THIS_LOOP: 1\nEXIT_SIGNAL: false\n---END_RALPH_STATUS---\n'
`

// TestSandboxConfinesAgentAndGates runs the real binary with SANDBOX=bwrap
// and an agent and a quality gate that try to reach outside the project:
// only their commits get through.
func TestSandboxConfinesAgentAndGates(t *testing.T) {
	t.Parallel()
	needBwrap(t)
	p := newLoopProject(t, 2, fakeagent.Script{})
	mustWrite(t, filepath.Join(p.home, ".ssh", "id_rsa"), "PRIVATE-KEY-1234\n")
	mustWrite(t, filepath.Join(p.home, ".bashrc"), "# mine\n")
	mustWrite(t, p.path("agent.sh"), attack("agent")+agentReply)
	mustWrite(t, p.path("gate.sh"), attack("gate")+"exit 0\n")
	mustWrite(t, p.path(".gitignore"), ".ralph/logs/\n.ralph/status.json\n.ralph/progress.json\n")
	git(t, p, "add", "-A")
	git(t, p, "commit", "-qm", "agent and gate")
	lock := p.path(".ralph/logs/.ralph_loop.lock")

	cmd := p.command(t, []string{"PLATFORM_DRIVER=command", "AGENT_COMMAND=bash agent.sh", "TEST_COMMAND=bash gate.sh",
		"SERVE_TOKEN=loop-secret-0123456789abcdef", "NOTIFY_WEBHOOK=https://hooks.example.invalid/secret-path"},
		"--sandbox", "bwrap", "--max-loops", "1")
	out, err := cmd.CombinedOutput()
	if code := cmd.ProcessState.ExitCode(); code != 4 {
		t.Fatalf("exit %d (%v), want 4 (max loops):\n%s", code, err, out)
	}

	if b, _ := os.ReadFile(filepath.Join(p.home, ".bashrc")); string(b) != "# mine\n" {
		t.Errorf("~/.bashrc was changed: %q", b)
	}
	for _, who := range []string{"agent", "gate"} {
		if b, _ := os.ReadFile(p.path(who + "-leak.txt")); strings.Contains(string(b), "PRIVATE-KEY") {
			t.Errorf("the %s read ~/.ssh/id_rsa: %q", who, b)
		}
		env, err := os.ReadFile(p.path(who + "-env.txt"))
		if err != nil {
			t.Errorf("the %s did not run: %v", who, err)
		}
		for _, secret := range []string{"loop-secret-0123456789abcdef", "secret-path"} {
			if strings.Contains(string(env), secret) {
				t.Errorf("the %s's environment holds the loop's secret %q", who, secret)
			}
		}
		if log := git(t, p, "log", "--format=%s"); !strings.Contains(log, who+" commit") {
			t.Errorf("the %s's commit did not land:\n%s", who, log)
		}
	}
	if b, err := os.ReadFile(lock); err == nil && strings.Contains(string(b), "99999") {
		t.Errorf("the lock file was rewritten: %q", b)
	}
	var status map[string]any
	b, _ := os.ReadFile(p.path(".ralph/status.json"))
	if json.Unmarshal(b, &status) != nil || status["exit_reason"] != "max_loops" {
		t.Errorf("status.json was not the loop's: %s", b)
	}
	if b, _ := os.ReadFile(p.path(".ralph/@fix_plan.md")); !strings.Contains(string(b), "- [x] Task 1") {
		t.Errorf("the agent could not tick its plan:\n%s", b)
	}
}

// TestSandboxDiesWithLoop: kill -9 of the loop leaves no process of the
// sandboxed agent (bwrap dies with its parent, and its pid namespace with
// it).
func TestSandboxDiesWithLoop(t *testing.T) {
	t.Parallel()
	needBwrap(t)
	p := newLoopProject(t, 2, fakeagent.Script{})
	marker := "4242.17" + strings.TrimPrefix(filepath.Base(p.dir), "proj")
	mustWrite(t, p.path("agent.sh"), "sleep "+marker+" &\nsleep "+marker+"\n")
	cmd := p.command(t, []string{"PLATFORM_DRIVER=command", "AGENT_COMMAND=bash agent.sh"}, "--sandbox", "bwrap")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if !waitFor(30*time.Second, func() bool { return len(processesWith(marker)) == 2 }) {
		_ = cmd.Process.Kill()
		t.Fatalf("the sandboxed agent did not start: %v", processesWith(marker))
	}
	if err := syscall.Kill(cmd.Process.Pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if !waitFor(10*time.Second, func() bool { return len(processesWith(marker)) == 0 }) {
		left := processesWith(marker)
		for _, pid := range left {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		t.Fatalf("after kill -9 of the loop, sandboxed processes still run: %v", left)
	}
}

// processesWith lists the live processes whose command line holds s.
func processesWith(s string) []int {
	var pids []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		n, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && strings.Contains(string(b), s) && !processGone(n) {
			pids = append(pids, n)
		}
	}
	return pids
}

// git runs git in the project and returns its output.
func git(t *testing.T, p *loopProject, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Env = p.dir, p.env(nil)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// TestSandboxContainer runs a call in a real container when
// RALPH_SANDBOX_IMAGE names an image with a POSIX shell (for example one
// built FROM scratch with a static busybox) and docker or podman runs
// here; CI machines without a container engine skip it. The agent cannot
// rewrite status.json, ticks its plan, and no container is left behind.
func TestSandboxContainer(t *testing.T) {
	image := os.Getenv("RALPH_SANDBOX_IMAGE")
	if image == "" {
		t.Skip("RALPH_SANDBOX_IMAGE is not set (an image with /bin/sh)")
	}
	p := newLoopProject(t, 2, fakeagent.Script{})
	mustWrite(t, p.path("agent.sh"), `echo '{}' > .ralph/status.json 2>/dev/null || echo refused >&2
env > agent-env.txt
`+agentReply)
	cmd := p.command(t, []string{"PLATFORM_DRIVER=command", "AGENT_COMMAND=sh agent.sh", "SANDBOX_IMAGE=" + image, "SANDBOX_ENGINE=" + os.Getenv("SANDBOX_ENGINE"),
		"SERVE_TOKEN=loop-secret-0123456789abcdef", "CONTAINERS_CONF=" + os.Getenv("CONTAINERS_CONF")},
		"--sandbox", "container", "--max-loops", "1")
	out, err := cmd.CombinedOutput()
	if code := cmd.ProcessState.ExitCode(); code != 4 {
		t.Fatalf("exit %d (%v), want 4:\n%s", code, err, out)
	}
	if b, _ := os.ReadFile(p.path(".ralph/@fix_plan.md")); !strings.Contains(string(b), "- [x] Task 1") {
		t.Errorf("the agent could not tick its plan:\n%s", b)
	}
	if b, _ := os.ReadFile(p.path("agent-env.txt")); strings.Contains(string(b), "loop-secret") {
		t.Errorf("the loop's secret reached the container")
	}
	var status map[string]any
	if b, _ := os.ReadFile(p.path(".ralph/status.json")); json.Unmarshal(b, &status) != nil || status["exit_reason"] != "max_loops" {
		t.Errorf("status.json was rewritten: %s", b)
	}
}
