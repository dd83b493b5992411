// Package swarm runs several loops of this program at once, one per group
// of epics of the plan, each in its own git worktree (.swarm/worker-i on
// branch swarm/worker-i, the layout bmalph's `bmalph run --swarm` uses),
// and merges the finished branches into the main branch through a queue
// that keeps it green: a branch goes in only when the quality gates pass on
// the merged result, tried in a scratch worktree first. docs/SWARM.md
// tells the whole story.
//
//	plan.go    the plan's epics and how they are split between workers
//	git.go     the git commands (through gitrun: no program the repository names)
//	state.go   .swarm/swarm.json, the swarm's state for --status and resume
//	budget.go  the calls-per-hour budget and usage limits the workers share
//	queue.go   the merge queue
//	swarm.go   Run: worktrees, workers, queue, report
package swarm
