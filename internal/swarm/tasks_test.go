//go:build unix

package swarm

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
)

// Release is called after each worker's loop, with the worker's
// worktree, whatever the loop's end (here both finish), and its lines go
// to the log: the trackers' claims a killed loop could not give back are
// given back there (cmd/ralph_loop's releaseWorker).
func TestReleaseAfterEachWorkersLoop(t *testing.T) {
	root := project(t, "# Plan\n\n## Epic A\n- [ ] a1\n\n## Epic B\n- [ ] b1\n")
	o := swarmOpts(t, root)
	var mu sync.Mutex
	var got []string
	o.Release = func(ctx context.Context, worktree string) []string {
		mu.Lock()
		defer mu.Unlock()
		if ctx.Err() != nil {
			t.Errorf("released with a done context")
		}
		if _, err := os.Stat(filepath.Join(worktree, ".ralph")); err != nil {
			t.Errorf("worktree %s: %v", worktree, err)
		}
		got = append(got, filepath.Base(worktree))
		return []string{"gave back its claim on bd-1 (beads)"}
	}
	r := runSwarm(t, o)
	if r.Status != "merged" {
		t.Fatalf("status %s, states %s", r.Status, states(r))
	}
	slices.Sort(got)
	if !slices.Equal(got, []string{"worker-1", "worker-2"}) {
		t.Errorf("released after %q", got)
	}
	if d := WorkerDir(func(string) (string, bool) { return filepath.Join(root, dir), true }); d != filepath.Join(root, dir) {
		t.Errorf("WorkerDir = %q", d)
	}
	if d := WorkerDir(func(string) (string, bool) { return "relative", true }); d != "" {
		t.Errorf("WorkerDir of a relative folder = %q", d)
	}
}
