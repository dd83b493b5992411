package config

import (
	"strings"
	"time"

	"github.com/ralphloop/ralph_loop/internal/clip"
)

// taskKeys are the keys of the trackers' write side (docs/TASKS.md). The
// bash loop's TASK_SOURCES, GITHUB_TASK_LABEL and BEADS_FILTER, which may
// turn on a read-only import from any .ralphrc, are rows of keys; these
// make network writes under the person's identity (a claim, a comment, a
// close), so a project's .ralphrc cannot turn them on, as it cannot set
// SERVE_TOKEN.
var taskKeys = []*keySpec{
	{name: "TASK_WRITEBACK", env: []string{"TASK_WRITEBACK"}, rc: true, def: "false",
		fromRepo: personOnly("TASK_WRITEBACK ignored: a project's .ralphrc cannot make the loop claim or close tracker items under your name; set TASK_WRITEBACK=true in your environment or pass --task-writeback"),
		flag:     &flagDef{long: "task-writeback", doc: "TASKS.md", group: GroupLoop, help: "claim the tracker item (TASK_SOURCES) each call works on, and close or comment on it once it is done"},
		accepts:  "boolean (not from the project's .ralphrc)", doc: "claim each tracker item before a call works on it and write back (close, comment) once it is done",
		set: boolSetter(func(c *Config) *bool { return &c.TaskWriteback })},
	{name: "GITHUB_CLOSE_ISSUES", env: []string{"GITHUB_CLOSE_ISSUES"}, rc: true, def: "false",
		fromRepo: personOnly("GITHUB_CLOSE_ISSUES ignored: a project's .ralphrc cannot make the loop close GitHub issues under your name; set GITHUB_CLOSE_ISSUES=true in your environment"),
		accepts:  "boolean (not from the project's .ralphrc)", doc: "with TASK_WRITEBACK, close a done GitHub issue (gh issue close --reason completed), not only comment and label it",
		set: boolSetter(func(c *Config) *bool { return &c.GithubCloseIssues })},
	{name: "TASK_TIMEOUT", env: []string{"TASK_TIMEOUT"}, rc: true, def: "60s",
		fromRepo: noLongerThan("TASK_TIMEOUT", time.Minute, "set a longer one in your environment"),
		accepts:  "duration from 1s to 10m (at most 1m from the project's .ralphrc)", doc: "time limit of one tracker command (bd, gh); one that takes longer is stopped and its sync skipped",
		set: func(c *Config, v string) error {
			d, err := parseDuration(v)
			if err != nil || d < time.Second || d > 10*time.Minute {
				return reject("expected a duration from 1s to 10m such as 60s")
			}
			c.TaskTimeout = d
			return nil
		}},
}

// setTaskSources reads TASK_SOURCES: comma-separated names, lower-cased.
// Names the loop does not know are kept (the tracker package warns of
// them once and reads none): the bash loop took any value, and bmalph's
// own templates may add sources of their own.
func setTaskSources(c *Config, v string) error {
	c.TaskSources = nil
	for _, s := range splitList(v, ",") {
		c.TaskSources = append(c.TaskSources, strings.ToLower(s))
	}
	return nil
}

// noLongerThan is the rule of a time bound a project's .ralphrc may
// shorten but not lengthen.
func noLongerThan(key string, max time.Duration, how string) func(string) string {
	return func(v string) string {
		d, err := parseDuration(v)
		if err != nil || d <= max {
			return "" // within the bound, or a bad value its setter reports
		}
		return key + "=" + clip.Value(v) + " ignored: a project's .ralphrc may shorten this bound, not lengthen it (at most " + max.String() + "); " + how
	}
}
