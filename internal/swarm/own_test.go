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

// TestGatesWrappedForTheScratchWorktree: the queue's gates run in a
// sandbox made for the scratch worktree they run in (GateWrap is asked
// for it), never with the root project's; each command goes through it.
func TestGatesWrappedForTheScratchWorktree(t *testing.T) {
	root := project(t, "# Plan\n\n## Epic A\n- [ ] a1\n\n## Epic B\n- [ ] b1\n")
	o := swarmOpts(t, root)
	var mu sync.Mutex
	var projects []string
	wrapped := 0
	o.Gates.Wrap = func(c supervise.Command) (supervise.Command, func(), error) {
		t.Error("the root project's wrap used")
		return c, nil, nil
	}
	o.GateWrap = func(project string) (func(supervise.Command) (supervise.Command, func(), error), error) {
		mu.Lock()
		projects = append(projects, project)
		mu.Unlock()
		return func(c supervise.Command) (supervise.Command, func(), error) {
			mu.Lock()
			wrapped++
			mu.Unlock()
			if c.Dir != project {
				t.Errorf("gate in %s, sandbox for %s", c.Dir, project)
			}
			return c, nil, nil
		}, nil
	}
	r := runSwarm(t, o)
	if r.Status != "merged" {
		t.Fatalf("status %s, states %s", r.Status, states(r))
	}
	if len(projects) != 2 || wrapped != 2 {
		t.Fatalf("GateWrap asked for %q, %d commands wrapped; want the scratch worktree twice", projects, wrapped)
	}
	for _, p := range projects {
		if !strings.HasSuffix(p, "/.swarm/.queue/merge") {
			t.Errorf("GateWrap asked for %s, want the scratch worktree", p)
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
