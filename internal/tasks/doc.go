// Package tasks brings the items of the trackers people keep their work
// in — beads (bd) and GitHub issues (gh) — into the plan the loop works
// from (TASK_SOURCES, docs/TASKS.md), and tells the trackers back.
//
// Each tracker is driven through its own CLI, run as the agent is run
// (internal/supervise: a process group, a time limit, the agent's
// environment), never through a client of its own:
//
//	beads.go    bd ready --json, bd show, bd update --claim, bd close
//	github.go   gh issue list/view/edit/comment/close, gh api --paginate
//	run.go      the runner and its one-line errors
//
// The plan stays the one list: each tracker has a section of
// .ralph/@fix_plan.md that the loop owns ("## Tasks from beads"), one
// line per item in bmalph's import form ("- [ ] [bd-a1b2] Title"),
// rewritten through fixplan.WithSection, which keeps every other byte;
// the map from line to item is .ralph/.tasks.json (state.go).
//
// Tracker is the engine's seam (engine.Tasks), called from one place
// before each call (Next: sync, claim, the fenced block about the item,
// fence.go) and one after (Done: write back what a call ticked once the
// gates pass), and at the run's end (End: give back the claims). A
// tracker that fails skips that step with a tracker_error; the run goes
// on. Claims and write-back happen only with TASK_WRITEBACK, which a
// project's .ralphrc cannot set.
package tasks
