package config

import (
	"math"
	"strings"
	"time"
)

// Completion modes (COMPLETION_MODE).
const (
	// CompletionSignals: the bash loop's decisions; the agent's exit
	// signals and a ticked plan end the run (a blocking gate may hold it).
	CompletionSignals = "signals"
	// CompletionStrict: the run completes only when the plan has no open
	// box and every configured quality gate passes.
	CompletionStrict = "strict"
)

// completionKeys are the keys of how a run is proven done
// (docs/LOOP-CONTROL.md): the completion mode, a check per ticked task, and
// --goal with its --check.
var completionKeys = []*keySpec{
	{name: "COMPLETION_MODE", env: []string{"COMPLETION_MODE"}, rc: true, def: CompletionSignals,
		flag:    &flagDef{long: "completion-mode", arg: "MODE", group: GroupLoop, common: true, doc: "LOOP-CONTROL.md", help: "strict: complete only when the plan has no open box and every quality gate passes; signals: the bash loop's decisions"},
		accepts: "signals, strict", doc: "what ends a run as complete: the agent's signals (the bash loop's decisions) or strict proof (no open box, every gate passing)",
		set: enumSetter("Valid modes", []string{CompletionSignals, CompletionStrict}, func(c *Config) *string { return &c.CompletionMode })},
	{name: "VERIFY_COMMAND", env: []string{"VERIFY_COMMAND"}, rc: true, def: "",
		accepts: "shell command (bash -c)", doc: "a check run for each newly ticked task, with RALPH_TASK, RALPH_TASK_SINCE and RALPH_TASK_COMMITS in its environment; a failure unticks the task",
		set: func(c *Config, v string) error { c.VerifyCommand = strings.TrimSpace(v); return nil }},
	{name: "VERIFY_TIMEOUT", env: []string{"VERIFY_TIMEOUT"}, rc: true, def: "300",
		accepts: "integer >= 1 (seconds)", doc: "time limit of each VERIFY_COMMAND run, seconds (a run that takes longer fails the task's check)",
		set: scaledSetter(1, math.MaxInt32, time.Second, func(c *Config) *time.Duration { return &c.VerifyTimeout })},
	{name: "GOAL",
		flag:    &flagDef{long: "goal", arg: "TEXT", group: GroupLoop, common: true, doc: "LOOP-CONTROL.md", help: "work on this one objective (no PROMPT.md or plan needed) until --check passes; a fresh context each call"},
		accepts: "text", doc: "the one objective of a --goal run",
		set: func(c *Config, v string) error { c.Goal = strings.TrimSpace(v); return nil }},
	{name: "GOAL_CHECK",
		flag:    &flagDef{long: "check", arg: "CMD", group: GroupLoop, common: true, doc: "LOOP-CONTROL.md", help: "with --goal: the shell command (bash -c) that decides the goal is met, run after every call"},
		accepts: "shell command (bash -c)", doc: "the check of a --goal run: the run is done when it exits 0",
		set: func(c *Config, v string) error { c.GoalCheck = strings.TrimSpace(v); return nil }},
}

// Strict reports whether the run completes only on proof: COMPLETION_MODE
// strict, or a --goal run.
func (c *Config) Strict() bool { return c.CompletionMode == CompletionStrict || c.Goal != "" }

// GoalError says what is wrong with a --goal run's flags: --goal and
// --check go together, each with a value (nil when they do, or neither is
// given). The loop checks it before it starts.
func (c *Config) GoalError() error {
	given := func(key string) bool { return c.Sources[key].Kind == sourceFlag }
	switch {
	case given("GOAL") && c.Goal == "":
		return &UsageError{Key: "--goal", Source: c.Sources["GOAL"], Accepted: "the objective, in words",
			Msg: "--goal needs the objective, in words (e.g. --goal 'make the login page accept e-mail addresses')"}
	case given("GOAL_CHECK") && c.GoalCheck == "":
		return &UsageError{Key: "--check", Source: c.Sources["GOAL_CHECK"], Accepted: "a shell command",
			Msg: "--check needs a shell command that exits 0 once the goal is met (e.g. --check 'go test ./...')"}
	case c.Goal != "" && c.GoalCheck == "":
		return &UsageError{Key: "--goal", Source: c.Sources["GOAL"], Accepted: "--check CMD",
			Msg: "--goal needs --check CMD, the shell command that tells the goal is met (e.g. --check 'go test ./...')"}
	case c.GoalCheck != "" && c.Goal == "":
		return &UsageError{Key: "--check", Source: c.Sources["GOAL_CHECK"], Accepted: "--goal TEXT",
			Msg: "--check only applies to --goal TEXT (the objective it checks)"}
	}
	return nil
}
