package engine

import (
	"strconv"
	"strings"

	"github.com/ralphloop/ralph_loop/internal/events"
	"github.com/ralphloop/ralph_loop/internal/fixplan"
	"github.com/ralphloop/ralph_loop/internal/gates"
	"github.com/ralphloop/ralph_loop/internal/store"
	"github.com/ralphloop/ralph_loop/templates"
)

// VERIFY_COMMAND is an optional check per task: after a call that ticked
// tasks of the plan, it runs once for each of them, as a quality gate
// command runs (bash -c, in the sandbox when one is on, bounded by
// VERIFY_TIMEOUT), with the task in its environment:
//
//	RALPH_TASK          the task's text, without its box
//	RALPH_TASK_SINCE    HEAD when the loop that started the task began
//	RALPH_TASK_COMMITS  the commits since then, oldest first, space-separated
//	RALPH_LOOP          the loop that ticked it
//
// A task whose check fails (or hangs past the timeout, or cannot start) is
// opened again in @fix_plan.md and the next call is told why, with the
// end of the check's output; its tick is no progress. Each verdict is in
// the iteration's event (verified) and --report's receipts.

// taskWatch is where the task under way started, and the failed checks
// the next call is told of.
type taskWatch struct {
	since  string                // HEAD when the task under way started ("" before the next loop)
	failed []templates.TaskCheck // failed checks, for the next call's context
}

// begin marks the start of a loop at sha: the start of the task under way
// when none is.
func (w *taskWatch) begin(sha string) {
	if w.since == "" {
		w.since = sha
	}
}

// taskEnv is a check's environment for task.
func taskEnv(task, since string, commits []string, loop int) []string {
	return []string{"RALPH_TASK=" + task, "RALPH_TASK_SINCE=" + since,
		"RALPH_TASK_COMMITS=" + strings.Join(commits, " "), "RALPH_LOOP=" + strconv.Itoa(loop)}
}

// checkTasks runs VERIFY_COMMAND for each task call c ticked, opens the
// failed ones again and measures the call's change anew; stopped is true
// when the loop was stopped while a check ran.
func (l *loop) checkTasks(c *call) (stopped bool) {
	if len(c.ticked) == 0 {
		return false
	}
	if l.s.VerifyCommand == "" {
		l.tasks.since = "" // the next task starts with the next loop
		return false
	}
	name := "logs/verify_" + c.stamp + ".log"
	cfg := gates.Config{Dir: l.s.ProjectDir, Env: l.deps.Env, Timeout: l.s.VerifyTimeout, Wrap: l.deps.Sandbox}
	if f, err := l.logs.CreateLog(name); err == nil {
		defer f.Close()
		cfg.Log, cfg.LogMax = f, l.s.MaxOutput
	} else {
		l.warn(err)
		name = ""
	}
	l.tree.stale = true // a check may change the tree
	commits := l.git.CommitsSince(l.ctx, l.tasks.since)
	plan, kept := l.plan.data, []string(nil)
	var failed []templates.TaskCheck
	for _, task := range c.ticked {
		f, err := gates.Check(l.ctx, cfg, l.s.VerifyCommand, taskEnv(task, l.tasks.since, commits, l.n))
		if err != nil {
			return true
		}
		v := events.TaskVerdict{Task: task, Passed: f == nil}
		if f == nil {
			kept = append(kept, task)
			c.verdicts = append(c.verdicts, v)
			l.bus.Note(events.TaskChecked{Task: task})
			continue
		}
		v.ExitCode, v.TimedOut = f.ExitCode, f.TimedOut
		c.verdicts = append(c.verdicts, v)
		plan, _ = fixplan.Untick(plan, task)
		failed = append(failed, templates.TaskCheck{Task: task, Command: f.Command, ExitCode: f.ExitCode, TimedOut: f.TimedOut, Tail: f.Tail})
		failure := gateFailure(*f)
		l.bus.Note(events.TaskChecked{Task: task, Failure: &failure, Log: l.relOrEmpty(name)})
	}
	c.ticked, l.tasks.failed = kept, failed
	if len(failed) == 0 {
		if name != "" {
			l.logs.RemoveLog(name)
		}
		l.tasks.since = ""
		return false
	}
	if err := l.writePlan(plan, store.PlanUnticked); err == nil {
		l.plan.set(plan, true)
	}
	// A tick whose check failed is no progress: the call is measured again
	// with the task open.
	after := c.before
	if counts, ok := l.fixPlanCounts(); ok {
		after = counts.Checked
	}
	c.change = l.measureChange(c, c.before, after)
	return false
}

// relOrEmpty is rel(name), or "" for no file.
func (l *loop) relOrEmpty(name string) string {
	if name == "" {
		return ""
	}
	return l.rel(name)
}
