//go:build unix

package swarm

import (
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/ralphloop/ralph_loop/internal/gates"
	"github.com/ralphloop/ralph_loop/internal/supervise"
)

// TestGatesWrappedForTheScratchWorktree: each of the queue's gate
// commands reaches the sandbox's wrap with the scratch worktree as its
// folder (the sandbox makes that folder the project: never the root).
func TestGatesWrappedForTheScratchWorktree(t *testing.T) {
	root := project(t, "# Plan\n\n## Epic A\n- [ ] a1\n\n## Epic B\n- [ ] b1\n")
	o := swarmOpts(t, root)
	var mu sync.Mutex
	var dirs []string
	o.Gates.Wrap = func(c supervise.Command) (supervise.Command, func(), error) {
		mu.Lock()
		dirs = append(dirs, c.Dir)
		mu.Unlock()
		return c, nil, nil
	}
	r := runSwarm(t, o)
	if r.Status != "merged" {
		t.Fatalf("status %s, states %s", r.Status, states(r))
	}
	if len(dirs) != 2 {
		t.Fatalf("%d gate commands wrapped (%q), want one per merge", len(dirs), dirs)
	}
	for _, d := range dirs {
		if !strings.HasSuffix(d, "/.swarm/.queue/merge") {
			t.Errorf("a gate wrapped in %s, want the scratch worktree", d)
		}
	}
}

// TestGateScripts: the literal relative paths of the gate commands, each
// once; options, absolute paths, paths out of the project and expansions
// are not taken.
func TestGateScripts(t *testing.T) {
	g := gates.Config{
		TestCommand: "sh ./scripts/test.sh --fast && make -f ci/Makefile test",
		Gates:       "bash scripts/test.sh; /usr/bin/check ../up.sh $HOME/x.sh \"q.sh\"; python3 tools/lint.py | tee out.txt",
	}
	want := []string{"sh", "scripts/test.sh", "make", "ci/Makefile", "test", "bash", "q.sh", "python3", "tools/lint.py", "tee", "out.txt"}
	if got := gateScripts(g); !slices.Equal(got, want) {
		t.Errorf("gateScripts = %q\nwant %q", got, want)
	}
	if got := gateScripts(gates.Config{TestCommand: "if then ("}); len(got) != 0 {
		t.Errorf("a command that does not parse names %q", got)
	}
}
