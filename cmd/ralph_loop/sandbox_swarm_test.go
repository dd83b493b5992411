//go:build linux

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// swarmAgent is each worker's agent, run in the sandbox in its worktree:
// it ticks its task as sed -i does (a new file renamed over the plan),
// writes a file of its own and commits it; then, as a hostile worker,
// tries to move main's branch, plant a hook in the repository and change
// its config, and records how each try ended in a file it commits too.
const swarmAgent = `name=$(basename "$PWD")
sed -i '0,/- \[ \]/s//- [x]/' .ralph/@fix_plan.md
echo "$name" > "out-$name.txt"
common=$(git rev-parse --git-common-dir)
{
  git update-ref refs/heads/main HEAD 2>/dev/null && echo "move main: SUCCEEDED" || echo "move main: blocked"
  (echo 'echo pwned' > "$common/hooks/post-merge") 2>/dev/null && echo "plant a hook: SUCCEEDED" || echo "plant a hook: blocked"
  git config --file "$common/config" core.hooksPath /tmp 2>/dev/null && echo "change the config: SUCCEEDED" || echo "change the config: blocked"
  (echo "gitdir: $common" > .git) 2>/dev/null && echo "repoint .git: SUCCEEDED" || echo "repoint .git: blocked"
} > "attacks-$name.txt"
git add -A && git commit -qm "work in $name" >&2
printf -- '---RALPH_STATUS---\nSTATUS: COMPLETE\nTASKS_COMPLETED_THIS_LOOP: 1\nEXIT_SIGNAL: true\n---END_RALPH_STATUS---\n'
`

// TestSandboxSwarm: --swarm 2 --sandbox bwrap on a two-epic plan, as root
// and as an unprivileged user: each worker's agent commits in its worktree
// (whose git folders live in the main repository's .git), the queue's
// gates start in a fresh checkout without .ralph/logs, and both epics are
// merged into main; no worker could move main, plant a hook in the
// repository, change its config, or point its worktree elsewhere.
func TestSandboxSwarm(t *testing.T) {
	t.Parallel() // it waits on the processes it starts: the scenarios run meanwhile
	for _, u := range sandboxUsers(t) {
		t.Run(u.name, func(t *testing.T) {
			t.Parallel()
			w := newSandboxWorld(t, u)
			mustWrite(t, filepath.Join(w.proj, ".ralph/PROMPT.md"), "Do the next task.\n")
			mustWrite(t, filepath.Join(w.proj, ".ralph/@fix_plan.md"), "# Fix Plan\n\n## Epic A\n- [ ] a1\n\n## Epic B\n- [ ] b1\n")
			mustWrite(t, filepath.Join(w.proj, ".ralph/.ralphrc"), "PLATFORM_DRIVER=command\nAGENT_COMMAND=\"bash agent.sh\"\nTEST_COMMAND=\"test ! -e bad.txt && test -f agent.sh\"\n")
			mustWrite(t, filepath.Join(w.proj, "agent.sh"), swarmAgent)
			w.own(t)
			w.git(t, "init", "-q", ".")
			w.git(t, "add", "-A")
			w.git(t, "commit", "-qm", "two epics")
			hooks := filepath.Join(w.proj, ".git/hooks")

			cmd := w.command(w.env("RALPH_SWARM_STAGGER=0s"), "--swarm", "2", "--sandbox", "bwrap")
			done := make(chan struct{})
			var out []byte
			go func() {
				out, _ = cmd.CombinedOutput()
				close(done)
			}()
			select {
			case <-done:
			case <-time.After(3 * time.Minute):
				_ = cmd.Process.Kill()
				<-done
				t.Fatalf("the swarm did not end:\n%s", out)
			}
			if code := cmd.ProcessState.ExitCode(); code != 0 || !strings.Contains(string(out), "swarm: all 2 workers merged into main") {
				logs, _ := filepath.Glob(filepath.Join(w.proj, ".swarm", "worker-*.log"))
				for _, l := range logs {
					b, _ := os.ReadFile(l)
					t.Logf("%s:\n%s", l, b)
				}
				t.Fatalf("exit %d:\n%s", code, out)
			}
			if !strings.Contains(string(out), "Sandbox: bwrap with ") {
				t.Errorf("the swarm does not say its sandbox:\n%s", out)
			}
			plan, _ := os.ReadFile(filepath.Join(w.proj, ".ralph/@fix_plan.md"))
			for _, want := range []string{"- [x] a1", "- [x] b1"} {
				if !strings.Contains(string(plan), want) {
					t.Errorf("main's plan lacks %q:\n%s", want, plan)
				}
			}
			for _, n := range []string{"worker-1", "worker-2"} {
				if _, err := os.Stat(filepath.Join(w.proj, "out-"+n+".txt")); err != nil {
					t.Errorf("%s's work is not on main: %v", n, err)
				}
				b, err := os.ReadFile(filepath.Join(w.proj, "attacks-"+n+".txt"))
				if err != nil || strings.Contains(string(b), "SUCCEEDED") || strings.Count(string(b), "blocked") != 4 {
					t.Errorf("%s's attacks (%v):\n%s", n, err, b)
				}
			}
			if log := w.git(t, "log", "--format=%s"); !strings.Contains(log, "work in worker-1") || !strings.Contains(log, "work in worker-2") {
				t.Errorf("the agents' own commits are not on main:\n%s", log)
			}
			if _, err := os.Stat(filepath.Join(hooks, "post-merge")); err == nil {
				t.Error("a worker planted a hook in the repository")
			}
		})
	}
}
