package config

import (
	"fmt"
	"math"
	"net"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ralphloop/ralph_loop/drivers"
	"github.com/ralphloop/ralph_loop/internal/clip"
	"github.com/ralphloop/ralph_loop/internal/lazyre"
	"github.com/ralphloop/ralph_loop/internal/typo"
)

func mustDriver(name string) drivers.Driver {
	d, err := drivers.Get(name)
	if err != nil {
		panic(err)
	}
	return d
}

// maxRepoGateTimeout is the longest QUALITY_GATE_TIMEOUT (seconds) a
// project's .ralphrc may set: as long as an agent call may last at most
// (CLAUDE_TIMEOUT_MINUTES=120).
const maxRepoGateTimeout = 120 * 60

const defaultAllowedTools = "Write,Read,Edit,MultiEdit,Glob,Grep,Task,TodoWrite,WebFetch,WebSearch,EnterPlanMode,ExitPlanMode,NotebookEdit,Bash"

var (
	// The driver names and Claude Code's tool names come from the drivers
	// package, the one place that knows the agent CLIs; ALLOWED_TOOLS is
	// checked only when the driver is claude-code.
	validDrivers = drivers.Names()
	claudeCode   = mustDriver("claude-code")
	claudeTools  = claudeCode.ValidTools()
	versionRe    = lazyre.Compile(`^[0-9]+(\.[0-9]+)*$`)
	floatRe      = lazyre.Compile(`^([0-9]+(\.[0-9]*)?|\.[0-9]+)$`)
	notifyNameRe = lazyre.Compile(`^[a-z][a-z0-9_]*$`)
)

// keySpec describes one configuration key.
type keySpec struct {
	name    string   // .ralphrc name, the key of Config.Sources
	env     []string // environment names, highest priority first
	rc      bool     // accepted in .ralphrc
	flag    *flagDef // the flag that sets it, if any: its help, group and place in --help
	def     string   // default, parsed by set like any other value
	accepts string   // accepted values, for CONFIG.md
	doc     string   // one-line meaning, for CONFIG.md
	// path: the value is a file name; the default and .ralphrc values are
	// relative to the Ralph directory, flag and environment values to the
	// project directory.
	path bool
	// fromRepo, when set, says why a project's .ralphrc may not set the key
	// to a value ("" when it may); such a line is skipped with that warning
	// unless the .ralphrc is the person's own (see trust.go).
	fromRepo func(v string) string
	// envEmptyCounts: an environment variable that is set but empty counts as
	// given (CLAUDE_PERMISSION_MODE); for every other key it counts as unset.
	envEmptyCounts bool
	set            func(c *Config, v string) error
}

// valueError is returned by a setter. accepted describes what would have
// been accepted; head, when set, replaces "Invalid KEY: 'value'".
type valueError struct {
	head     string
	accepted string
	near     string // the accepted value the given one is likely a typo of
}

func (e *valueError) Error() string {
	if e.near != "" {
		return e.accepted + "; did you mean " + e.near + "?"
	}
	return e.accepted
}

// likely is the accepted value word is likely meant as: a near miss
// ("bwarp": bwrap) or the one value it begins ("claude": claude-code), or "".
func likely(word string, values []string) string {
	if word == "" {
		return ""
	}
	if n := typo.Nearest(word, values); n != "" {
		return n
	}
	var hit string
	for _, v := range values {
		if strings.HasPrefix(strings.ToLower(v), strings.ToLower(word)) {
			if hit != "" {
				return "" // more than one: no guess
			}
			hit = v
		}
	}
	return hit
}

func reject(accepted string) error { return &valueError{accepted: accepted} }

// keys lists every key. The order is the order of validation, so the first
// invalid value reported is the one the bash loop would report first.
var keys = append([]*keySpec{
	{name: "PLATFORM_DRIVER", env: []string{"PLATFORM_DRIVER"}, rc: true, def: "claude-code",
		flag:    &flagDef{long: "driver", doc: "DRIVERS.md", arg: "NAME", group: GroupAgent, common: true, help: "agent CLI: claude-code, codex, cursor, copilot, opencode or command"},
		accepts: strings.Join(validDrivers, ", "), doc: "agent CLI driver",
		set: func(c *Config, v string) error {
			v = strings.TrimSpace(v)
			accepted := "available drivers: " + strings.Join(validDrivers, " ")
			if strings.Contains(v, "/") || strings.Contains(v, "..") || strings.Contains(v, `\`) {
				return &valueError{head: fmt.Sprintf("Invalid PLATFORM_DRIVER (path traversal): '%s'", clip.Value(v)), accepted: accepted}
			}
			for _, d := range validDrivers {
				if v == d {
					c.Driver = v
					return nil
				}
			}
			return &valueError{head: fmt.Sprintf("Platform driver not found: '%s'", clip.Value(v)), accepted: accepted, near: likely(v, validDrivers)}
		}},
	{name: "PERMISSION_DENIAL_MODE", env: []string{"PERMISSION_DENIAL_MODE"}, rc: true, def: "continue",
		accepts: "continue, halt, threshold", doc: "what a permission denial does: keep going, stop, or count toward CB_PERMISSION_DENIAL_THRESHOLD",
		set: enumSetter("Valid modes", []string{"continue", "halt", "threshold"}, func(c *Config) *string { return &c.PermissionDenialMode })},
	{name: "QUALITY_GATE_MODE", env: []string{"QUALITY_GATE_MODE"}, rc: true, def: "warn",
		accepts: "warn, block, circuit-breaker", doc: "what a failing quality gate does",
		set: enumSetter("Valid modes", []string{"warn", "block", "circuit-breaker"}, func(c *Config) *string { return &c.QualityGateMode })},
	{name: "QUALITY_GATE_TIMEOUT", env: []string{"QUALITY_GATE_TIMEOUT"}, rc: true, def: "120",
		fromRepo: noLift("QUALITY_GATE_TIMEOUT", maxRepoGateTimeout, false, "set a longer one in your environment"),
		accepts:  "integer >= 1 (seconds; at most 7200 from the project's .ralphrc)", doc: "timeout of each gate command, seconds",
		set: scaledSetter(1, math.MaxInt32, time.Second, func(c *Config) *time.Duration { return &c.QualityGateTimeout })},
	{name: "CLAUDE_PERMISSION_MODE", env: []string{"CLAUDE_PERMISSION_MODE"}, rc: true, def: "bypassPermissions", envEmptyCounts: true,
		accepts: "auto, acceptEdits, bypassPermissions, default, dontAsk, plan (empty = bypassPermissions)", doc: "Claude Code --permission-mode",
		set: func(c *Config, v string) error {
			if strings.TrimSpace(v) == "" {
				v = "bypassPermissions"
			}
			return enumSetter("Valid modes", []string{"auto", "acceptEdits", "bypassPermissions", "default", "dontAsk", "plan"},
				func(c *Config) *string { return &c.PermissionMode })(c, v)
		}},
	{name: "MAX_CALLS_PER_HOUR", env: []string{"MAX_CALLS_PER_HOUR"}, rc: true, def: "100",
		flag:    &flagDef{long: "calls", short: "c", arg: "NUM", group: GroupMain, common: true, help: "agent calls allowed per clock hour"},
		accepts: "integer >= 1", doc: "agent calls allowed per clock hour",
		set: intSetter(1, math.MaxInt32, func(c *Config) *int { return &c.MaxCallsPerHour })},
	{name: "CLAUDE_TIMEOUT_MINUTES", env: []string{"CLAUDE_TIMEOUT_MINUTES"}, rc: true, def: "15",
		flag:    &flagDef{long: "timeout", short: "t", arg: "MIN", group: GroupMain, common: true, help: "minutes one agent call may take, 1 to 120"},
		accepts: "integer 1..120 (minutes)", doc: "time limit of one agent call, minutes",
		set: scaledSetter(1, 120, time.Minute, func(c *Config) *time.Duration { return &c.Timeout })},
	{name: "CLAUDE_OUTPUT_FORMAT", env: []string{"CLAUDE_OUTPUT_FORMAT"}, rc: true, def: "json",
		flag:    &flagDef{long: "output-format", arg: "FORMAT", group: GroupAgent, common: true, help: "agent output format, json or text; --live always uses json"},
		accepts: "json, text", doc: "agent output format",
		set: enumSetter("Valid formats", []string{"json", "text"}, func(c *Config) *string { return &c.OutputFormat })},
	{name: "ALLOWED_TOOLS", env: []string{"ALLOWED_TOOLS", "CLAUDE_ALLOWED_TOOLS"}, rc: true, def: defaultAllowedTools,
		flag:    &flagDef{long: "allowed-tools", arg: "TOOLS", group: GroupAgent, common: true, noDefault: true, help: "comma-separated tool allowlist, e.g. 'Read,Write,Bash(git *)'; Claude Code only"},
		accepts: "comma-separated Claude Code tool names or Bash(...) patterns (checked for claude-code only)", doc: "tool allowlist passed to Claude Code; other drivers ignore it",
		set: func(c *Config, v string) error { c.AllowedTools = splitList(v, ","); return nil }},
	{name: "SESSION_CONTINUITY", env: []string{"SESSION_CONTINUITY", "CLAUDE_USE_CONTINUE"}, rc: true, def: "true",
		flag:    &flagDef{long: "no-continue", negate: true, group: GroupAgent, common: true, help: "start a fresh agent session on every loop"},
		accepts: "boolean", doc: "resume the agent session across loops and send the loop context",
		set: boolSetter(func(c *Config) *bool { return &c.SessionContinuity })},
	{name: "SESSION_EXPIRY_HOURS", env: []string{"SESSION_EXPIRY_HOURS", "CLAUDE_SESSION_EXPIRY_HOURS"}, rc: true, def: "24",
		flag:    &flagDef{long: "session-expiry", arg: "HOURS", group: GroupAgent, common: true, help: "resume a session only if it was used in the last HOURS hours"},
		accepts: "integer >= 1 (hours)", doc: "hours a session may sit idle and still be resumed",
		set: scaledSetter(1, math.MaxInt32, time.Hour, func(c *Config) *time.Duration { return &c.SessionExpiry })},
	{name: "KEEP_SESSION_ON_STOP", env: []string{"KEEP_SESSION_ON_STOP"}, rc: true, def: "false",
		accepts: "boolean", doc: "keep the agent session when the run is stopped (Ctrl+C, SIGTERM) or starts with the circuit breaker open; false resets it, as the bash loop does (--reset-session always resets)",
		set: boolSetter(func(c *Config) *bool { return &c.KeepSessionOnStop })},
	{name: "RALPH_VERBOSE", env: []string{"RALPH_VERBOSE", "VERBOSE_PROGRESS"}, rc: true, def: "false",
		flag:    &flagDef{long: "verbose", short: "v", group: GroupMain, common: true, help: "report more progress while running"},
		accepts: "boolean", doc: "more progress detail",
		set: boolSetter(func(c *Config) *bool { return &c.Verbose })},
	{name: "WRITE_TIMEOUT_MINUTES", env: []string{"WRITE_TIMEOUT_MINUTES"}, rc: true, def: "8",
		accepts: "integer >= 0 (minutes, 0 = off)", doc: "stop an agent call that changes no project file for this long",
		set: scaledSetter(0, math.MaxInt32, time.Minute, func(c *Config) *time.Duration { return &c.WriteTimeout })},
	{name: "PROMPT_FILE", env: []string{"PROMPT_FILE"}, rc: true, def: "PROMPT.md", path: true,
		flag:    &flagDef{long: "prompt", short: "p", arg: "FILE", group: GroupMain, common: true, help: "prompt file, relative to the current directory"},
		accepts: "file name", doc: "prompt sent to the agent",
		set: pathSetter(true, func(c *Config) *string { return &c.PromptFile })},
	{name: "FIX_PLAN_FILE", env: []string{"FIX_PLAN_FILE"}, rc: true, def: "@fix_plan.md", path: true,
		accepts: "file name", doc: "task list the loop tracks",
		set: pathSetter(true, func(c *Config) *string { return &c.FixPlanFile })},
	{name: "AGENT_FILE", env: []string{"AGENT_FILE"}, rc: true, def: "@AGENT.md", path: true,
		accepts: "file name", doc: "build/run instructions file",
		set: pathSetter(true, func(c *Config) *string { return &c.AgentFile })},
	{name: "CB_NO_PROGRESS_THRESHOLD", env: []string{"CB_NO_PROGRESS_THRESHOLD"}, rc: true, def: "3",
		accepts: "integer >= 1", doc: "loops without progress that open the circuit breaker",
		set: intSetter(1, math.MaxInt32, func(c *Config) *int { return &c.Breaker.NoProgressThreshold })},
	{name: "CB_SAME_ERROR_THRESHOLD", env: []string{"CB_SAME_ERROR_THRESHOLD"}, rc: true, def: "5",
		accepts: "integer >= 1", doc: "loops with errors in a row that open the circuit breaker",
		set: intSetter(1, math.MaxInt32, func(c *Config) *int { return &c.Breaker.SameErrorThreshold })},
	{name: "CB_OUTPUT_DECLINE_THRESHOLD", env: []string{"CB_OUTPUT_DECLINE_THRESHOLD"}, rc: true, def: "70",
		accepts: "integer 0..100 (percent)", doc: "accepted for compatibility; no rule uses it",
		set: intSetter(0, 100, func(c *Config) *int { return &c.Breaker.OutputDeclineThreshold })},
	{name: "CB_PERMISSION_DENIAL_THRESHOLD", env: []string{"CB_PERMISSION_DENIAL_THRESHOLD"}, rc: true, def: "2",
		accepts: "integer >= 1", doc: "loops with permission denials that open the breaker (PERMISSION_DENIAL_MODE=threshold)",
		set: intSetter(1, math.MaxInt32, func(c *Config) *int { return &c.Breaker.PermissionDenialThreshold })},
	{name: "CB_READ_ONLY_TIMEOUT_THRESHOLD", env: []string{"CB_READ_ONLY_TIMEOUT_THRESHOLD"}, rc: true, def: "2",
		accepts: "integer >= 1", doc: "write-heartbeat timeouts in a row that open the breaker",
		set: intSetter(1, math.MaxInt32, func(c *Config) *int { return &c.Breaker.ReadOnlyTimeoutThreshold })},
	{name: "CB_COOLDOWN_MINUTES", env: []string{"CB_COOLDOWN_MINUTES"}, rc: true, def: "30",
		accepts: "integer >= 0 (minutes)", doc: "minutes before an open breaker goes half-open at start-up",
		set: scaledSetter(0, math.MaxInt32, time.Minute, func(c *Config) *time.Duration { return &c.Breaker.Cooldown })},
	{name: "CB_AUTO_RESET", env: []string{"CB_AUTO_RESET"}, rc: true, def: "false",
		flag:    &flagDef{long: "auto-reset-circuit", group: GroupMain, common: true, help: "at start-up, close an open circuit breaker without waiting for its cooldown"},
		accepts: "boolean", doc: "close an open breaker at start-up without waiting for the cooldown",
		set: boolSetter(func(c *Config) *bool { return &c.Breaker.AutoReset })},
	{name: "TEST_COMMAND", env: []string{"TEST_COMMAND"}, rc: true, def: "",
		accepts: "shell command", doc: "command that verifies the agent's test claims",
		set: func(c *Config, v string) error { c.TestCommand = v; return nil }},
	{name: "QUALITY_GATES", env: []string{"QUALITY_GATES"}, rc: true, def: "",
		accepts: "';'-separated shell commands", doc: "commands run after each loop",
		set: func(c *Config, v string) error { c.QualityGates = splitList(v, ";"); return nil }},
	{name: "QUALITY_GATE_ON_COMPLETION_ONLY", env: []string{"QUALITY_GATE_ON_COMPLETION_ONLY"}, rc: true, def: "false",
		accepts: "boolean", doc: "run the gates only when the agent signals completion",
		set: boolSetter(func(c *Config) *bool { return &c.QualityGateOnlyOnEnd })},
	{name: "REVIEW_MODE", env: []string{"REVIEW_MODE"}, rc: true, def: "off",
		accepts: "off, enhanced, ultimate", doc: "periodic code review",
		set: enumSetter("Valid modes", []string{"off", "enhanced", "ultimate"}, func(c *Config) *string { return &c.ReviewMode })},
	{name: "REVIEW_ENABLED", env: []string{"REVIEW_ENABLED"}, rc: true, def: "false",
		accepts: "boolean", doc: "legacy: true with REVIEW_MODE=off means enhanced",
		set: boolSetter(func(c *Config) *bool { return &c.ReviewEnabled })},
	{name: "REVIEW_INTERVAL", env: []string{"REVIEW_INTERVAL"}, rc: true, def: "5",
		accepts: "integer >= 1 (loops)", doc: "loops between reviews in enhanced mode",
		set: intSetter(1, math.MaxInt32, func(c *Config) *int { return &c.ReviewInterval })},
	{name: "PROJECT_NAME", env: []string{"PROJECT_NAME"}, rc: true, def: "",
		accepts: "text", doc: "project name (informational)",
		set: func(c *Config, v string) error { c.ProjectName = v; return nil }},
	{name: "PROJECT_TYPE", env: []string{"PROJECT_TYPE"}, rc: true, def: "",
		accepts: "text", doc: "project type (informational)",
		set: func(c *Config, v string) error { c.ProjectType = v; return nil }},
	{name: "TASK_SOURCES", env: []string{"TASK_SOURCES"}, rc: true, def: "",
		accepts: "comma-separated: local, beads, github (empty = local)", doc: "where tasks come from: the plan, and beads or GitHub issues imported into it (docs/TASKS.md)",
		set: setTaskSources},
	{name: "GITHUB_TASK_LABEL", env: []string{"GITHUB_TASK_LABEL"}, rc: true, def: "ralph-task",
		accepts: "a GitHub label", doc: "the label of the open GitHub issues imported as tasks (TASK_SOURCES=github)",
		set: func(c *Config, v string) error { c.GithubTaskLabel = strings.TrimSpace(v); return nil }},
	{name: "BEADS_FILTER", env: []string{"BEADS_FILTER"}, rc: true, def: "",
		accepts: "space-separated terms such as status:open label:backend priority:1 type:bug", doc: "which ready beads are imported (TASK_SOURCES=beads): bd ready's filters",
		set: func(c *Config, v string) error { c.BeadsFilter = v; return nil }},
	{name: "CLAUDE_MIN_VERSION", env: []string{"CLAUDE_MIN_VERSION"}, rc: true, def: "2.0.76",
		accepts: "version such as 2.0.76", doc: "minimum Claude CLI version: --doctor (claude --version) and a run (its install's files at start-up; under --live, the init record) warn below it",
		set: func(c *Config, v string) error {
			v = strings.TrimSpace(v)
			if !versionRe().MatchString(v) {
				return reject("expected a version such as 2.0.76")
			}
			c.MinVersion = v
			return nil
		}},

	// Keys the bash loop does not have.
	{name: "MAX_LOOPS", env: []string{"MAX_LOOPS"}, rc: true, def: "0",
		flag:    &flagDef{long: "max-loops", arg: "N", group: GroupLoop, common: true, help: "stop after N loops, 0 for no limit"},
		accepts: "integer >= 0 (0 = unlimited)", doc: "stop after this many loops",
		set: intSetter(0, math.MaxInt32, func(c *Config) *int { return &c.MaxLoops })},
	{name: "LOOP_DELAY", env: []string{"LOOP_DELAY"}, rc: true, def: "5s",
		flag:    &flagDef{long: "delay", arg: "DURATION", group: GroupLoop, help: "wait between loops"},
		accepts: "duration", doc: "pause between loops",
		set: durationSetter(func(c *Config) *int64 { return (*int64)(&c.LoopDelay) })},
	{name: "IDLE_DELAY", env: []string{"IDLE_DELAY"}, rc: true, def: "0",
		accepts: "duration (0 = off)", doc: "first wait after a loop that did nothing",
		set: durationSetter(func(c *Config) *int64 { return (*int64)(&c.IdleDelay) })},
	{name: "IDLE_BACKOFF", env: []string{"IDLE_BACKOFF"}, rc: true, def: "",
		accepts: "number >= 1 (default 2 when IDLE_DELAY is set)", doc: "factor the idle wait grows by per idle loop",
		set: func(c *Config, v string) error {
			if strings.TrimSpace(v) == "" {
				c.IdleBackoff = 0
				return nil
			}
			f, ok := parseFloat(v)
			if !ok || f < 1 {
				return reject("expected a number >= 1")
			}
			c.IdleBackoff = f
			return nil
		}},
	{name: "IDLE_MAX_DELAY", env: []string{"IDLE_MAX_DELAY"}, rc: true, def: "0",
		accepts: "duration (0 = no cap)", doc: "cap of the idle wait",
		set: durationSetter(func(c *Config) *int64 { return (*int64)(&c.IdleMaxDelay) })},
	{name: "IDLE_MAX", env: []string{"IDLE_MAX"}, rc: true, def: "0",
		accepts: "duration (0 = no limit)", doc: "stop once the agent has been idle this long in a row",
		set: durationSetter(func(c *Config) *int64 { return (*int64)(&c.IdleMax) })},
	{name: "STALL_LIMIT", env: []string{"STALL_LIMIT"}, rc: true, def: "0",
		accepts: "integer >= 0 (0 = off)", doc: "stop after this many stalled loops in a row (same reply, no git change)",
		set: intSetter(0, math.MaxInt32, func(c *Config) *int { return &c.StallLimit })},
	{name: "DONE_PATTERN", env: []string{"DONE_PATTERN"}, rc: true, def: "",
		flag:    &flagDef{long: "done-pattern", arg: "REGEX", group: GroupLoop, help: "stop when the agent's output matches REGEX"},
		accepts: "regular expression (RE2)", doc: "stop when the agent's output matches",
		set: func(c *Config, v string) error {
			if v == "" {
				c.DonePattern = nil
				return nil
			}
			re, err := regexp.Compile(v)
			if err != nil {
				return reject("expected a regular expression: " + regexpReason(err))
			}
			c.DonePattern = re
			return nil
		}},
	{name: "INACTIVITY_TIMEOUT", env: []string{"INACTIVITY_TIMEOUT"}, rc: true, def: "0",
		flag:    &flagDef{long: "inactivity-timeout", arg: "DURATION", group: GroupLoop, help: "stop an agent call that prints nothing for this long, 0 for never"},
		accepts: "duration (0 = off)", doc: "stop an agent call that prints nothing for this long",
		set: durationSetter(func(c *Config) *int64 { return (*int64)(&c.Inactivity) })},
	{name: "MAX_COST_USD", env: []string{"MAX_COST_USD"}, rc: true, def: "0",
		flag:    &flagDef{long: "max-cost", arg: "USD", group: GroupLoop, help: "stop once the agent reports this much spend, 0 for no limit"},
		accepts: "number >= 0 (USD, 0 = off)", doc: "stop once the reported spend reaches this",
		set: func(c *Config, v string) error {
			f, ok := parseFloat(v)
			if !ok {
				return reject("expected a number >= 0 (US dollars)")
			}
			c.MaxCostUSD = f
			return nil
		}},
	{name: "MAX_TOKENS", env: []string{"MAX_TOKENS"}, rc: true, def: "0",
		flag:    &flagDef{long: "max-tokens", arg: "N", group: GroupLoop, help: "stop once the agent reports this many tokens, 0 for no limit"},
		accepts: "integer >= 0 (0 = off)", doc: "stop once the reported token use reaches this",
		set: func(c *Config, v string) error {
			n, ok := parseInt(v)
			if !ok {
				return reject("expected an integer >= 0")
			}
			c.MaxTokens = n
			return nil
		}},
	{name: "MAX_OUTPUT_MB", env: []string{"MAX_OUTPUT_MB"}, rc: true, def: "256",
		fromRepo: noLift("MAX_OUTPUT_MB", 256, true, "set a higher one with --max-output-mb or in your environment"),
		flag:     &flagDef{long: "max-output-mb", arg: "MB", group: GroupLoop, help: "stop an agent call whose output passes MB megabytes (its log keeps the head and the tail), 0 for no limit"},
		accepts:  "integer 0..1048576 (MB, 0 = no limit; 1..256 from the project's .ralphrc)", doc: "stop an agent call whose output passes this many MB; its log keeps the head and the tail",
		set: scaledSetter(0, 1<<20, int64(1<<20), func(c *Config) *int64 { return &c.MaxOutput })},
	{name: "LOG_KEEP", env: []string{"LOG_KEEP"}, rc: true, def: "200",
		fromRepo: noLift("LOG_KEEP", 200, true, "set a higher one with --log-keep or in your environment"),
		flag:     &flagDef{long: "log-keep", doc: "LOGS.md", arg: "N", group: GroupLoop, help: "keep the logs of the last N agent calls, 0 for all"},
		accepts:  "integer >= 0 (0 = keep all; 1..200 from the project's .ralphrc)", doc: "agent calls whose output, stderr and stream logs are kept under logs/; older ones are removed after each call",
		set: intSetter(0, math.MaxInt32, func(c *Config) *int { return &c.LogKeep })},
	{name: "LOG_MAX_MB", env: []string{"LOG_MAX_MB"}, rc: true, def: "50",
		fromRepo: noLift("LOG_MAX_MB", 50, true, "set a higher one with --log-max-mb or in your environment"),
		flag:     &flagDef{long: "log-max-mb", arg: "MB", group: GroupLoop, help: "rotate ralph.log, events.jsonl, metrics.jsonl past MB megabytes to NAME.1 … NAME.5, 0 for never"},
		accepts:  "integer 0..1048576 (MB, 0 = never rotate; 1..50 from the project's .ralphrc)", doc: "size at which ralph.log, events.jsonl, metrics.jsonl, hooks.log and live.log are rotated to NAME.1 … NAME.5",
		set: intSetter(0, 1<<20, func(c *Config) *int { return &c.LogMaxMB })},
	{name: "MAX_CONSECUTIVE_FAILURES", env: []string{"MAX_CONSECUTIVE_FAILURES"}, rc: true, def: "5",
		accepts: "integer >= 0 (0 = never stop)", doc: "stop after this many failed agent calls in a row",
		set: intSetter(0, math.MaxInt32, func(c *Config) *int { return &c.MaxConsecutiveFailures })},
	{name: "AGENT_COMMAND", env: []string{"AGENT_COMMAND"}, rc: true, def: "",
		accepts: "command line (quotes and $VAR allowed, no $(...))", doc: "agent command for PLATFORM_DRIVER=command",
		set: func(c *Config, v string) error { c.AgentCommand = v; return nil }},
	{name: "AGENT_PROMPT_MODE", env: []string{"AGENT_PROMPT_MODE"}, rc: true, def: "stdin",
		accepts: "stdin, arg", doc: "how the command driver passes the prompt",
		set: enumSetter("Valid modes", []string{"stdin", "arg"}, func(c *Config) *string { return &c.PromptMode })},
	{name: "FALLBACK_DRIVER", env: []string{"FALLBACK_DRIVER"}, rc: true, def: "",
		flag:    &flagDef{long: "fallback-driver", doc: "FALLBACK.md", arg: "NAME", group: GroupAgent, help: "agent CLI to go on with while the main one is at its usage limit, back to the main one after its reset"},
		accepts: strings.Join(validDrivers, ", ") + " (empty = off; not PLATFORM_DRIVER itself)", doc: "agent CLI the loop goes on with while the main driver is at its usage limit (docs/FALLBACK.md)",
		set: func(c *Config, v string) error {
			v = strings.TrimSpace(v)
			if v == "" {
				c.FallbackDriver = ""
				return nil
			}
			for _, d := range validDrivers {
				if v == d {
					c.FallbackDriver = v
					return nil
				}
			}
			return &valueError{accepted: "available drivers: " + strings.Join(validDrivers, " "), near: likely(v, validDrivers)}
		}},
	{name: "NOTIFY_ON", env: []string{"NOTIFY_ON"}, rc: true, def: defaultNotifyOn,
		flag:    &flagDef{long: "notify-on", doc: "NOTIFY.md", arg: "EVENTS", group: GroupNotify, help: "the events to send, comma-separated"},
		accepts: "comma-separated event types, breaker_opened, guard_gave_up or all (docs/NOTIFY.md)", doc: "the events sent to the notifiers",
		set: func(c *Config, v string) error {
			names := splitList(v, ",")
			for _, n := range names {
				if !notifyNameRe().MatchString(n) {
					return reject("expected comma-separated event names such as run_finished,breaker_opened")
				}
			}
			c.NotifyOn = names
			return nil
		}},
	{name: "NOTIFY_COMMAND", env: []string{"NOTIFY_COMMAND"}, rc: true, def: "",
		flag:    &flagDef{long: "notify-command", arg: "CMD", group: GroupNotify, help: "run CMD for each event, the event's JSON on stdin"},
		accepts: "command line (quotes and $VAR allowed, no $(...))", doc: "run for each selected event, the event's JSON on stdin",
		set: func(c *Config, v string) error { c.NotifyCommand = v; return nil }},
	{name: "NOTIFY_WEBHOOK", env: []string{"NOTIFY_WEBHOOK"}, rc: true, def: "",
		flag:    &flagDef{long: "notify-webhook", arg: "URL", group: GroupNotify, help: "POST each event as JSON with a text field (Slack, Mattermost)"},
		accepts: "http:// or https:// URL", doc: "POST each selected event as JSON with a text field (Slack, Mattermost)",
		set: func(c *Config, v string) error {
			v = strings.TrimSpace(v)
			if v != "" && !webhookURL(v) {
				// The value is not quoted: a webhook's path is its secret.
				return &valueError{head: "Invalid NOTIFY_WEBHOOK", accepted: "expected an http:// or https:// URL with a host"}
			}
			c.NotifyWebhook = v
			return nil
		}},
	{name: "NOTIFY_DESKTOP", env: []string{"NOTIFY_DESKTOP"}, rc: true, def: "false",
		flag:    &flagDef{long: "notify-desktop", group: GroupNotify, help: "show a desktop notice for each event"},
		accepts: "boolean", doc: "a desktop notice for each selected event (notify-send, osascript, PowerShell)",
		set: boolSetter(func(c *Config) *bool { return &c.NotifyDesktop })},
	{name: "NOTIFY_TIMEOUT", env: []string{"NOTIFY_TIMEOUT"}, rc: true, def: "10s",
		accepts: "duration > 0, at most 1m", doc: "time limit of one notification (a hook's run, a webhook's try) and of the wait for them at the end",
		set: func(c *Config, v string) error {
			d, err := parseDuration(v)
			if err != nil || d <= 0 {
				return reject("expected a duration > 0 such as 10s")
			}
			c.NotifyTimeout = d
			return nil
		}},
	{name: "EVENTS_FILE", env: []string{"EVENTS_FILE"}, rc: true, def: "", path: true,
		flag:    &flagDef{long: "events", arg: "FILE", group: GroupLoop, help: "append one JSON object per event to FILE ('-' = stdout)"},
		accepts: "file name, '-' = stdout, empty = off", doc: "write one JSON event per line",
		set: pathSetter(false, func(c *Config) *string { return &c.EventsFile })},
	{name: "SERVE_ADDR", env: []string{"SERVE_ADDR"}, rc: true, def: "127.0.0.1:8765", fromRepo: loopbackOnly,
		accepts: "HOST:PORT (loopback unless SERVE_TOKEN is set; in the project's .ralphrc loopback only)", doc: "address of the web dashboard (--serve ADDR, --dashboard ADDR)",
		set: addrSetter},
	{name: "SERVE_CONTROL", env: []string{"SERVE_CONTROL"}, rc: true, def: "false",
		fromRepo: personOnly("SERVE_CONTROL ignored: a project's .ralphrc cannot turn on the dashboard's controls; set SERVE_CONTROL=true in your environment"),
		accepts:  "boolean (not from the project's .ralphrc)", doc: "let the web dashboard pause, resume, skip a wait and stop the loop (needs SERVE_TOKEN)",
		set: boolSetter(func(c *Config) *bool { return &c.ServeControl })},
	{name: "SERVE_TOKEN", env: []string{"SERVE_TOKEN"}, rc: true, def: "",
		fromRepo: personOnly("SERVE_TOKEN ignored: a token in the project is known to everyone who can read the repository; set SERVE_TOKEN in your environment"),
		accepts:  "a secret of 16 or more characters, empty = none (not from the project's .ralphrc)", doc: "the web dashboard's token: needed for its controls and for any request from another machine",
		set: func(c *Config, v string) error {
			v = strings.TrimSpace(v)
			if v != "" && (len(v) < 16 || strings.ContainsFunc(v, func(r rune) bool { return r <= ' ' || r > '~' })) {
				// A secret, even a wrong one, is never shown back.
				return &valueError{head: "Invalid SERVE_TOKEN (not shown)", accepted: "expected 16 or more printable ASCII characters without spaces (for example: openssl rand -hex 16)"}
			}
			c.ServeToken = v
			return nil
		}},
}, slices.Concat(usageKeys, outageKeys, askKeys, sandboxKeys, swarmKeys, completionKeys, taskKeys)...)

// addrSetter accepts HOST:PORT with a numeric port; an empty host means
// every interface.
func addrSetter(c *Config, v string) error {
	v = strings.TrimSpace(v)
	host, port, err := net.SplitHostPort(v)
	n, perr := strconv.Atoi(port)
	if err != nil || perr != nil || n < 0 || n > 65535 || strings.ContainsAny(host, " /") {
		return reject("expected HOST:PORT, for example 127.0.0.1:8765")
	}
	c.ServeAddr = v
	return nil
}

var keyIndex = indexKeys(keys)

func indexKeys(ks []*keySpec) map[string]*keySpec {
	m := make(map[string]*keySpec, len(ks))
	for _, k := range ks {
		m[k.name] = k
	}
	return m
}

// rcAllowed reports whether key may appear in .ralphrc.
func rcAllowed(key string) bool {
	k, ok := keyIndex[key]
	return ok && k.rc
}

// rcKeyHint explains, for a few names that are rejected in .ralphrc, what to
// write instead.
func rcKeyHint(key string) string {
	switch key {
	case "CLAUDE_ALLOWED_TOOLS":
		return "use ALLOWED_TOOLS"
	case "CLAUDE_USE_CONTINUE":
		return "use SESSION_CONTINUITY"
	case "CLAUDE_SESSION_EXPIRY_HOURS":
		return "use SESSION_EXPIRY_HOURS"
	case "VERBOSE_PROGRESS":
		return "use RALPH_VERBOSE"
	case "RALPH_DIR":
		return "RALPH_DIR can only be set in the environment"
	}
	return ""
}

func intSetter(min, max int, field func(*Config) *int) func(*Config, string) error {
	return scaledSetter(min, max, 1, field)
}

// scaledSetter reads an integer from min to max in units of unit (minutes,
// MB) into a field that holds the product (a duration, bytes).
func scaledSetter[T ~int | ~int64](min, max int, unit T, field func(*Config) *T) func(*Config, string) error {
	var accepted string
	switch {
	case max < math.MaxInt32:
		accepted = fmt.Sprintf("expected an integer from %d to %d", min, max)
	case min == 1:
		accepted = "expected a positive integer"
	case min == 0:
		accepted = "expected an integer >= 0"
	default:
		accepted = fmt.Sprintf("expected an integer >= %d", min)
	}
	return func(c *Config, v string) error {
		n, ok := parseInt(v)
		if !ok || n < int64(min) || n > int64(max) {
			return reject(accepted)
		}
		*field(c) = T(n) * unit
		return nil
	}
}

func boolSetter(field func(*Config) *bool) func(*Config, string) error {
	return func(c *Config, v string) error {
		b, ok := parseBool(v)
		if !ok {
			return reject("expected true or false")
		}
		*field(c) = b
		return nil
	}
}

func enumSetter(noun string, values []string, field func(*Config) *string) func(*Config, string) error {
	accepted := noun + ": " + strings.Join(values, " ")
	return func(c *Config, v string) error {
		t := strings.TrimSpace(v)
		for _, ok := range values {
			if t == ok {
				*field(c) = t
				return nil
			}
		}
		return &valueError{accepted: accepted, near: likely(t, values)}
	}
}

func durationSetter(field func(*Config) *int64) func(*Config, string) error {
	return func(c *Config, v string) error {
		d, err := parseDuration(v)
		if err != nil {
			return reject("expected a duration such as 30s, 5m, 6h, 1d or a number of seconds")
		}
		*field(c) = int64(d)
		return nil
	}
}

func pathSetter(required bool, field func(*Config) *string) func(*Config, string) error {
	return func(c *Config, v string) error {
		if required && v == "" {
			return reject("expected a file name")
		}
		if strings.ContainsRune(v, 0) {
			return reject("expected a file name without NUL bytes")
		}
		*field(c) = v
		return nil
	}
}

// parseInt accepts unsigned decimal digits only (surrounding blanks
// ignored): no sign, no 0x/0o prefixes, no underscores.
func parseInt(v string) (int64, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	for i := 0; i < len(v); i++ {
		if v[i] < '0' || v[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(v, 10, 64)
	return n, err == nil
}

// parseFloat accepts unsigned decimal numbers only ("2", "2.5", ".5").
func parseFloat(v string) (float64, bool) {
	v = strings.TrimSpace(v)
	if !floatRe().MatchString(v) {
		return 0, false
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, false
	}
	return f, true
}

// parseBool accepts true/false, yes/no, on/off and 1/0 in any case.
func parseBool(v string) (bool, bool) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "true", "yes", "on", "1":
		return true, true
	case "false", "no", "off", "0":
		return false, true
	}
	return false, false
}

// splitList splits on sep, trims blanks and drops empty pieces.
func splitList(v, sep string) []string {
	out := []string{}
	for _, p := range strings.Split(v, sep) {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// defaultNotifyOn is NOTIFY_ON's default: the end of a run, a breaker
// opening, a usage-limit wait starting, the usage governor's projection
// crossing a threshold (only with its keys set), the failure guard giving
// up and the agent asking the person a question.
const defaultNotifyOn = "run_finished,breaker_opened,usage_limited,usage_projected,guard_gave_up,question_asked"

// webhookURL reports whether v is an absolute http or https URL with a host.
func webhookURL(v string) bool {
	u, err := url.Parse(v)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" && u.Hostname() != ""
}

func regexpReason(err error) string {
	return strings.TrimPrefix(err.Error(), "error parsing regexp: ")
}
