package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/ralphloop/ralph_loop/internal/config"
	"github.com/ralphloop/ralph_loop/internal/engine"
	"github.com/ralphloop/ralph_loop/internal/events"
	"github.com/ralphloop/ralph_loop/internal/ralphdir"
	"github.com/ralphloop/ralph_loop/internal/swarm"
	"github.com/ralphloop/ralph_loop/internal/tasks"
)

// trackerOptions are the trackers' options for a loop in cwd
// (TASK_SOURCES, docs/TASKS.md). The CLIs run as the person, outside
// any sandbox (they need the person's credentials and the network); with
// a sandbox on, bd runs none of the repository's own hooks.
func trackerOptions(cfg *config.Config, dir *ralphdir.Dir, cwd string) tasks.Options {
	o := tasks.Options{
		Sources: cfg.TaskSources, Label: cfg.GithubTaskLabel, Filter: cfg.BeadsFilter,
		Writeback: cfg.TaskWriteback, CloseIssues: cfg.GithubCloseIssues, Timeout: cfg.TaskTimeout,
		Project: cwd, Dir: dir, Env: os.Environ(), NoHooks: cfg.Sandbox != "off",
		Gates: cfg.TestCommand != "" || len(cfg.QualityGates) > 0,
	}
	if d := swarm.WorkerDir(os.LookupEnv); d != "" {
		o.SwarmDir, o.Worker = d, filepath.Base(cwd)
	}
	return o
}

// newTracker is the loop's engine.Tasks, nil when TASK_SOURCES names no
// tracker; warn gets what is wrong with the settings, once. busy is held
// while a tracker step runs, as it is during an agent call: a stop then
// waits for the step (the claims given back at the end above all), which
// TASK_TIMEOUT bounds, instead of killing it as a blocked engine.
func newTracker(o tasks.Options, busy *steps, warn func(string)) engine.Tasks {
	tr, warns := tasks.New(o)
	for _, w := range warns {
		warn(w)
	}
	if tr == nil {
		return nil // not a nil *Tracker in the interface: no trackers at all
	}
	return busyTasks{tr, busy}
}

// busyTasks holds busy during each of the trackers' steps.
type busyTasks struct {
	t    *tasks.Tracker
	busy *steps
}

func (b busyTasks) hold() func() { return b.busy.hold() }

func (b busyTasks) Next(ctx context.Context) (string, []events.Task) {
	defer b.hold()()
	return b.t.Next(ctx)
}

func (b busyTasks) Done(ctx context.Context, loop int, ticked []string, green bool, commit string) []events.Task {
	defer b.hold()()
	return b.t.Done(ctx, loop, ticked, green, commit)
}

func (b busyTasks) End(ctx context.Context, loop int, green bool, commit string) []events.Task {
	defer b.hold()()
	return b.t.End(ctx, loop, green, commit)
}

// trackerPreview is --dry-run's look at the trackers: the commands a run
// would run and the items it would import (the read-only list commands
// run; nothing is claimed, closed or written). nil without trackers.
func trackerPreview(cfg *config.Config, dir *ralphdir.Dir, cwd string, warn func(string)) *tasks.Preview {
	tr, warns := tasks.New(trackerOptions(cfg, dir, cwd))
	for _, w := range warns {
		warn(w)
	}
	if tr == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*cfg.TaskTimeout)
	defer cancel()
	p := tr.Preview(ctx)
	return &p
}

// printTrackers shows the preview for a person.
func printTrackers(w io.Writer, p *tasks.Preview) {
	if p == nil {
		return
	}
	mode := "import only: nothing is claimed, commented on or closed (TASK_WRITEBACK is off)"
	if p.Writeback {
		mode = "claims and write-back on (TASK_WRITEBACK)"
	}
	fmt.Fprintf(w, "\nTrackers (%s):\n", mode)
	for _, t := range p.Trackers {
		fmt.Fprintf(w, "  %s, into %q of @fix_plan.md; a run would run:\n", t.Tracker, t.Section)
		for _, c := range t.Commands {
			fmt.Fprintf(w, "    %s\n", c)
		}
		switch {
		case t.Error != "":
			fmt.Fprintf(w, "  now: %s\n", t.Error)
		case len(t.Items) == 0:
			fmt.Fprintf(w, "  now: no item to import\n")
		default:
			fresh := 0
			for _, it := range t.Items {
				if it.New {
					fresh++
				}
			}
			fmt.Fprintf(w, "  now: %d items, %d of them not in the plan yet:\n", len(t.Items), fresh)
			for _, it := range t.Items {
				mark := " "
				if it.New {
					mark = "+"
				}
				fmt.Fprintf(w, "   %s [%s] %s\n", mark, it.Key, it.Title)
			}
		}
	}
}

// trackerChecks are --doctor's lines about the trackers: each CLI's
// version and login (or database), and whether claims and write-back are
// on. None without trackers.
func trackerChecks(cfg *config.Config, dir *ralphdir.Dir, cwd string) []check {
	var out []check
	tr, warns := tasks.New(trackerOptions(cfg, dir, cwd))
	for _, w := range warns {
		out = append(out, bad("trackers: %s", w))
	}
	if tr == nil {
		return out
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*cfg.TaskTimeout)
	defer cancel()
	for _, c := range tr.Doctor(ctx) {
		switch {
		case c.Skipped:
			out = append(out, skip("trackers: %s", c.Text))
		case c.OK && c.What == "writeback":
			out = append(out, good("trackers: %s", c.Text))
		case c.OK:
			out = append(out, good("tracker %s %s: %s", c.Tracker, c.What, c.Text))
		default:
			out = append(out, bad("tracker %s %s: %s", c.Tracker, c.What, c.Text))
		}
	}
	return out
}

// releaseWorker gives back the claims a swarm worker's loop left (it was
// killed before its own end could): the swarm calls it after each of the
// worker's loops.
func releaseWorker(cfg *config.Config) func(ctx context.Context, worktree string) []string {
	return func(ctx context.Context, worktree string) []string {
		dir := ralphdir.New(filepath.Join(worktree, ".ralph"), nil)
		o := trackerOptions(cfg, dir, worktree)
		o.Worker, o.SwarmDir = filepath.Base(worktree), filepath.Dir(worktree)
		ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		return tasks.ReleaseClaims(ctx, o)
	}
}
