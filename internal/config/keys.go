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

	"github.com/ralphloop/ralph_loop/drivers"
)

func mustDriver(name string) drivers.Driver {
	d, err := drivers.Get(name)
	if err != nil {
		panic(err)
	}
	return d
}

const defaultAllowedTools = "Write,Read,Edit,MultiEdit,Glob,Grep,Task,TodoWrite,WebFetch,WebSearch,EnterPlanMode,ExitPlanMode,NotebookEdit,Bash"

var (
	// The driver names and Claude Code's tool names come from the drivers
	// package, the one place that knows the agent CLIs; ALLOWED_TOOLS is
	// checked only when the driver is claude-code.
	validDrivers = drivers.Names()
	claudeCode   = mustDriver("claude-code")
	claudeTools  = claudeCode.ValidTools()
	versionRe    = regexp.MustCompile(`^[0-9]+(\.[0-9]+)*$`)
	floatRe      = regexp.MustCompile(`^([0-9]+(\.[0-9]*)?|\.[0-9]+)$`)
	notifyNameRe = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)
)

// keySpec describes one configuration key.
type keySpec struct {
	name    string   // .ralphrc name, the key of Config.Sources
	env     []string // environment names, highest priority first
	rc      bool     // accepted in .ralphrc
	flag    string   // long flag that sets it, without dashes
	def     string   // default, parsed by set like any other value
	accepts string   // accepted values, for CONFIG.md
	doc     string   // one-line meaning, for CONFIG.md
	// path: the value is a file name; the default and .ralphrc values are
	// relative to the Ralph directory, flag and environment values to the
	// project directory.
	path bool
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
}

func (e *valueError) Error() string { return e.accepted }

func reject(accepted string) error { return &valueError{accepted: accepted} }

// keys lists every key. The order is the order of validation, so the first
// invalid value reported is the one the bash loop would report first.
var keys = append([]*keySpec{
	{name: "PLATFORM_DRIVER", env: []string{"PLATFORM_DRIVER"}, rc: true, flag: "driver", def: "claude-code",
		accepts: strings.Join(validDrivers, ", "), doc: "agent CLI driver",
		set: func(c *Config, v string) error {
			v = strings.TrimSpace(v)
			accepted := "available drivers: " + strings.Join(validDrivers, " ")
			if strings.Contains(v, "/") || strings.Contains(v, "..") || strings.Contains(v, `\`) {
				return &valueError{head: fmt.Sprintf("Invalid PLATFORM_DRIVER (path traversal): '%s'", show(v)), accepted: accepted}
			}
			for _, d := range validDrivers {
				if v == d {
					c.Driver = v
					return nil
				}
			}
			return &valueError{head: fmt.Sprintf("Platform driver not found: '%s'", show(v)), accepted: accepted}
		}},
	{name: "PERMISSION_DENIAL_MODE", env: []string{"PERMISSION_DENIAL_MODE"}, rc: true, def: "continue",
		accepts: "continue, halt, threshold", doc: "what a permission denial does: keep going, stop, or count toward CB_PERMISSION_DENIAL_THRESHOLD",
		set: enumSetter("Valid modes", []string{"continue", "halt", "threshold"}, func(c *Config) *string { return &c.PermissionDenialMode })},
	{name: "QUALITY_GATE_MODE", env: []string{"QUALITY_GATE_MODE"}, rc: true, def: "warn",
		accepts: "warn, block, circuit-breaker", doc: "what a failing quality gate does",
		set: enumSetter("Valid modes", []string{"warn", "block", "circuit-breaker"}, func(c *Config) *string { return &c.QualityGateMode })},
	{name: "QUALITY_GATE_TIMEOUT", env: []string{"QUALITY_GATE_TIMEOUT"}, rc: true, def: "120",
		accepts: "integer >= 1 (seconds)", doc: "timeout of each gate command, seconds",
		set: intSetter(1, math.MaxInt32, func(c *Config) *int { return &c.QualityGateTimeoutSeconds })},
	{name: "CLAUDE_PERMISSION_MODE", env: []string{"CLAUDE_PERMISSION_MODE"}, rc: true, def: "bypassPermissions", envEmptyCounts: true,
		accepts: "auto, acceptEdits, bypassPermissions, default, dontAsk, plan (empty = bypassPermissions)", doc: "Claude Code --permission-mode",
		set: func(c *Config, v string) error {
			if strings.TrimSpace(v) == "" {
				v = "bypassPermissions"
			}
			return enumSetter("Valid modes", []string{"auto", "acceptEdits", "bypassPermissions", "default", "dontAsk", "plan"},
				func(c *Config) *string { return &c.PermissionMode })(c, v)
		}},
	{name: "MAX_CALLS_PER_HOUR", env: []string{"MAX_CALLS_PER_HOUR"}, rc: true, flag: "calls", def: "100",
		accepts: "integer >= 1", doc: "agent calls allowed per clock hour",
		set: intSetter(1, math.MaxInt32, func(c *Config) *int { return &c.MaxCallsPerHour })},
	{name: "CLAUDE_TIMEOUT_MINUTES", env: []string{"CLAUDE_TIMEOUT_MINUTES"}, rc: true, flag: "timeout", def: "15",
		accepts: "integer 1..120 (minutes)", doc: "time limit of one agent call, minutes",
		set: intSetter(1, 120, func(c *Config) *int { return &c.TimeoutMinutes })},
	{name: "CLAUDE_OUTPUT_FORMAT", env: []string{"CLAUDE_OUTPUT_FORMAT"}, rc: true, flag: "output-format", def: "json",
		accepts: "json, text", doc: "agent output format",
		set: enumSetter("Valid formats", []string{"json", "text"}, func(c *Config) *string { return &c.OutputFormat })},
	{name: "ALLOWED_TOOLS", env: []string{"ALLOWED_TOOLS", "CLAUDE_ALLOWED_TOOLS"}, rc: true, flag: "allowed-tools", def: defaultAllowedTools,
		accepts: "comma-separated Claude Code tool names or Bash(...) patterns (checked for claude-code only)", doc: "tool allowlist passed to Claude Code; other drivers ignore it",
		set: func(c *Config, v string) error { c.AllowedTools = splitList(v, ","); return nil }},
	{name: "SESSION_CONTINUITY", env: []string{"SESSION_CONTINUITY", "CLAUDE_USE_CONTINUE"}, rc: true, flag: "no-continue", def: "true",
		accepts: "boolean", doc: "resume the agent session across loops and send the loop context",
		set: boolSetter(func(c *Config) *bool { return &c.SessionContinuity })},
	{name: "SESSION_EXPIRY_HOURS", env: []string{"SESSION_EXPIRY_HOURS", "CLAUDE_SESSION_EXPIRY_HOURS"}, rc: true, flag: "session-expiry", def: "24",
		accepts: "integer >= 1 (hours)", doc: "hours a session may sit idle and still be resumed",
		set: intSetter(1, math.MaxInt32, func(c *Config) *int { return &c.SessionExpiryHours })},
	{name: "RALPH_VERBOSE", env: []string{"RALPH_VERBOSE", "VERBOSE_PROGRESS"}, rc: true, flag: "verbose", def: "false",
		accepts: "boolean", doc: "more progress detail",
		set: boolSetter(func(c *Config) *bool { return &c.Verbose })},
	{name: "WRITE_TIMEOUT_MINUTES", env: []string{"WRITE_TIMEOUT_MINUTES"}, rc: true, def: "8",
		accepts: "integer >= 0 (minutes, 0 = off)", doc: "stop an agent call that changes no project file for this long",
		set: intSetter(0, math.MaxInt32, func(c *Config) *int { return &c.WriteTimeoutMinutes })},
	{name: "PROMPT_FILE", env: []string{"PROMPT_FILE"}, rc: true, flag: "prompt", def: "PROMPT.md", path: true,
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
		set: intSetter(1, math.MaxInt32, func(c *Config) *int { return &c.CBNoProgressThreshold })},
	{name: "CB_SAME_ERROR_THRESHOLD", env: []string{"CB_SAME_ERROR_THRESHOLD"}, rc: true, def: "5",
		accepts: "integer >= 1", doc: "loops with errors in a row that open the circuit breaker",
		set: intSetter(1, math.MaxInt32, func(c *Config) *int { return &c.CBSameErrorThreshold })},
	{name: "CB_OUTPUT_DECLINE_THRESHOLD", env: []string{"CB_OUTPUT_DECLINE_THRESHOLD"}, rc: true, def: "70",
		accepts: "integer 0..100 (percent)", doc: "accepted for compatibility; no rule uses it",
		set: intSetter(0, 100, func(c *Config) *int { return &c.CBOutputDeclineThreshold })},
	{name: "CB_PERMISSION_DENIAL_THRESHOLD", env: []string{"CB_PERMISSION_DENIAL_THRESHOLD"}, rc: true, def: "2",
		accepts: "integer >= 1", doc: "loops with permission denials that open the breaker (PERMISSION_DENIAL_MODE=threshold)",
		set: intSetter(1, math.MaxInt32, func(c *Config) *int { return &c.CBPermissionDenialThreshold })},
	{name: "CB_READ_ONLY_TIMEOUT_THRESHOLD", env: []string{"CB_READ_ONLY_TIMEOUT_THRESHOLD"}, rc: true, def: "2",
		accepts: "integer >= 1", doc: "write-heartbeat timeouts in a row that open the breaker",
		set: intSetter(1, math.MaxInt32, func(c *Config) *int { return &c.CBReadOnlyTimeoutThreshold })},
	{name: "CB_COOLDOWN_MINUTES", env: []string{"CB_COOLDOWN_MINUTES"}, rc: true, def: "30",
		accepts: "integer >= 0 (minutes)", doc: "minutes before an open breaker goes half-open at start-up",
		set: intSetter(0, math.MaxInt32, func(c *Config) *int { return &c.CBCooldownMinutes })},
	{name: "CB_AUTO_RESET", env: []string{"CB_AUTO_RESET"}, rc: true, flag: "auto-reset-circuit", def: "false",
		accepts: "boolean", doc: "close an open breaker at start-up without waiting for the cooldown",
		set: boolSetter(func(c *Config) *bool { return &c.CBAutoReset })},
	{name: "TEST_COMMAND", env: []string{"TEST_COMMAND"}, rc: true, def: "",
		accepts: "shell command", doc: "command that verifies the agent's test claims",
		set: func(c *Config, v string) error { c.TestCommand = v; return nil }},
	{name: "QUALITY_GATES", env: []string{"QUALITY_GATES"}, rc: true, def: "",
		accepts: "';'-separated shell commands", doc: "commands run after each loop",
		set: func(c *Config, v string) error { c.QualityGates = splitList(v, ";"); return nil }},
	{name: "QUALITY_GATE_ON_COMPLETION_ONLY", env: []string{"QUALITY_GATE_ON_COMPLETION_ONLY"}, rc: true, def: "false",
		accepts: "boolean", doc: "run the gates only when the agent signals completion",
		set: boolSetter(func(c *Config) *bool { return &c.QualityGateOnCompletionOnly })},
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
		accepts: "text", doc: "task import sources (informational)",
		set: func(c *Config, v string) error { c.TaskSources = v; return nil }},
	{name: "GITHUB_TASK_LABEL", env: []string{"GITHUB_TASK_LABEL"}, rc: true, def: "",
		accepts: "text", doc: "GitHub task label (informational)",
		set: func(c *Config, v string) error { c.GithubTaskLabel = v; return nil }},
	{name: "BEADS_FILTER", env: []string{"BEADS_FILTER"}, rc: true, def: "",
		accepts: "text", doc: "beads task filter (informational)",
		set: func(c *Config, v string) error { c.BeadsFilter = v; return nil }},
	{name: "CLAUDE_MIN_VERSION", env: []string{"CLAUDE_MIN_VERSION"}, rc: true, def: "2.0.76",
		accepts: "version such as 2.0.76", doc: "minimum Claude CLI version (informational)",
		set: func(c *Config, v string) error {
			v = strings.TrimSpace(v)
			if !versionRe.MatchString(v) {
				return reject("expected a version such as 2.0.76")
			}
			c.ClaudeMinVersion = v
			return nil
		}},

	// Keys the bash loop does not have.
	{name: "MAX_LOOPS", env: []string{"MAX_LOOPS"}, rc: true, flag: "max-loops", def: "0",
		accepts: "integer >= 0 (0 = unlimited)", doc: "stop after this many loops",
		set: intSetter(0, math.MaxInt32, func(c *Config) *int { return &c.MaxLoops })},
	{name: "LOOP_DELAY", env: []string{"LOOP_DELAY"}, rc: true, flag: "delay", def: "5s",
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
	{name: "DONE_PATTERN", env: []string{"DONE_PATTERN"}, rc: true, flag: "done-pattern", def: "",
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
	{name: "INACTIVITY_TIMEOUT", env: []string{"INACTIVITY_TIMEOUT"}, rc: true, flag: "inactivity-timeout", def: "0",
		accepts: "duration (0 = off)", doc: "stop an agent call that prints nothing for this long",
		set: durationSetter(func(c *Config) *int64 { return (*int64)(&c.InactivityTimeout) })},
	{name: "MAX_COST_USD", env: []string{"MAX_COST_USD"}, rc: true, flag: "max-cost", def: "0",
		accepts: "number >= 0 (USD, 0 = off)", doc: "stop once the reported spend reaches this",
		set: func(c *Config, v string) error {
			f, ok := parseFloat(v)
			if !ok {
				return reject("expected a number >= 0 (US dollars)")
			}
			c.MaxCostUSD = f
			return nil
		}},
	{name: "MAX_TOKENS", env: []string{"MAX_TOKENS"}, rc: true, flag: "max-tokens", def: "0",
		accepts: "integer >= 0 (0 = off)", doc: "stop once the reported token use reaches this",
		set: func(c *Config, v string) error {
			n, ok := parseInt(v)
			if !ok {
				return reject("expected an integer >= 0")
			}
			c.MaxTokens = n
			return nil
		}},
	{name: "MAX_OUTPUT_MB", env: []string{"MAX_OUTPUT_MB"}, rc: true, flag: "max-output-mb", def: "256",
		accepts: "integer 0..1048576 (MB, 0 = no limit)", doc: "stop an agent call whose output passes this many MB; its log keeps the head and the tail",
		set: intSetter(0, 1<<20, func(c *Config) *int { return &c.MaxOutputMB })},
	{name: "LOG_KEEP", env: []string{"LOG_KEEP"}, rc: true, flag: "log-keep", def: "200",
		accepts: "integer >= 0 (0 = keep all)", doc: "agent calls whose output, stderr and stream logs are kept under logs/; older ones are removed after each call",
		set: intSetter(0, math.MaxInt32, func(c *Config) *int { return &c.LogKeep })},
	{name: "LOG_MAX_MB", env: []string{"LOG_MAX_MB"}, rc: true, flag: "log-max-mb", def: "50",
		accepts: "integer 0..1048576 (MB, 0 = never rotate)", doc: "size at which ralph.log, events.jsonl, metrics.jsonl, hooks.log and live.log are rotated to NAME.1 … NAME.5",
		set: intSetter(0, 1<<20, func(c *Config) *int { return &c.LogMaxMB })},
	{name: "MAX_CONSECUTIVE_FAILURES", env: []string{"MAX_CONSECUTIVE_FAILURES"}, rc: true, def: "5",
		accepts: "integer >= 0 (0 = never stop)", doc: "stop after this many failed agent calls in a row",
		set: intSetter(0, math.MaxInt32, func(c *Config) *int { return &c.MaxConsecutiveFailures })},
	{name: "AGENT_COMMAND", env: []string{"AGENT_COMMAND"}, rc: true, def: "",
		accepts: "command line (quotes and $VAR allowed, no $(...))", doc: "agent command for PLATFORM_DRIVER=command",
		set: func(c *Config, v string) error { c.AgentCommand = v; return nil }},
	{name: "AGENT_PROMPT_MODE", env: []string{"AGENT_PROMPT_MODE"}, rc: true, def: "stdin",
		accepts: "stdin, arg", doc: "how the command driver passes the prompt",
		set: enumSetter("Valid modes", []string{"stdin", "arg"}, func(c *Config) *string { return &c.AgentPromptMode })},
	{name: "FALLBACK_DRIVER", env: []string{"FALLBACK_DRIVER"}, rc: true, flag: "fallback-driver", def: "",
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
			return reject("available drivers: " + strings.Join(validDrivers, " "))
		}},
	{name: "NOTIFY_ON", env: []string{"NOTIFY_ON"}, rc: true, flag: "notify-on", def: DefaultNotifyOn,
		accepts: "comma-separated event types, breaker_opened, guard_gave_up or all (docs/NOTIFY.md)", doc: "the events sent to the notifiers",
		set: func(c *Config, v string) error {
			names := splitList(v, ",")
			for _, n := range names {
				if !notifyNameRe.MatchString(n) {
					return reject("expected comma-separated event names such as run_finished,breaker_opened")
				}
			}
			c.NotifyOn = names
			return nil
		}},
	{name: "NOTIFY_COMMAND", env: []string{"NOTIFY_COMMAND"}, rc: true, flag: "notify-command", def: "",
		accepts: "command line (quotes and $VAR allowed, no $(...))", doc: "run for each selected event, the event's JSON on stdin",
		set: func(c *Config, v string) error { c.NotifyCommand = v; return nil }},
	{name: "NOTIFY_WEBHOOK", env: []string{"NOTIFY_WEBHOOK"}, rc: true, flag: "notify-webhook", def: "",
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
	{name: "NOTIFY_DESKTOP", env: []string{"NOTIFY_DESKTOP"}, rc: true, flag: "notify-desktop", def: "false",
		accepts: "boolean", doc: "a desktop notice for each selected event (notify-send, osascript, PowerShell)",
		set: boolSetter(func(c *Config) *bool { return &c.NotifyDesktop })},
	{name: "NOTIFY_TIMEOUT", env: []string{"NOTIFY_TIMEOUT"}, rc: true, def: "10s",
		accepts: "duration > 0, at most 1m", doc: "time limit of one notification (a hook's run, a webhook's try) and of the wait for them at the end",
		set: func(c *Config, v string) error {
			d, err := ParseDuration(v)
			if err != nil || d <= 0 {
				return reject("expected a duration > 0 such as 10s")
			}
			c.NotifyTimeout = d
			return nil
		}},
	{name: "EVENTS_FILE", env: []string{"EVENTS_FILE"}, rc: true, flag: "events", def: "", path: true,
		accepts: "file name, '-' = stdout, empty = off", doc: "write one JSON event per line",
		set: pathSetter(false, func(c *Config) *string { return &c.EventsFile })},
	{name: "SERVE_ADDR", env: []string{"SERVE_ADDR"}, rc: true, def: "127.0.0.1:8765",
		accepts: "HOST:PORT (loopback unless SERVE_TOKEN is set; in the project's .ralphrc loopback only)", doc: "address of the web dashboard (--serve ADDR, --dashboard ADDR)",
		set: addrSetter},
	{name: "SERVE_CONTROL", env: []string{"SERVE_CONTROL"}, rc: true, def: "false",
		accepts: "boolean (not from the project's .ralphrc)", doc: "let the web dashboard pause, resume, skip a wait and stop the loop (needs SERVE_TOKEN)",
		set: boolSetter(func(c *Config) *bool { return &c.ServeControl })},
	{name: "SERVE_TOKEN", env: []string{"SERVE_TOKEN"}, rc: true, def: "",
		accepts: "a secret of 16 or more characters, empty = none (not from the project's .ralphrc)", doc: "the web dashboard's token: needed for its controls and for any request from another machine",
		set: func(c *Config, v string) error {
			v = strings.TrimSpace(v)
			if v != "" && (len(v) < 16 || strings.ContainsFunc(v, func(r rune) bool { return r <= ' ' || r > '~' })) {
				return reject("expected 16 or more printable ASCII characters without spaces (for example: openssl rand -hex 16)")
			}
			c.ServeToken = v
			return nil
		}},
}, slices.Concat(usageKeys, outageKeys, sandboxKeys, swarmKeys)...)

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

var keyIndex = func() map[string]*keySpec {
	m := make(map[string]*keySpec, len(keys))
	for _, k := range keys {
		m[k.name] = k
	}
	return m
}()

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
		*field(c) = int(n)
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
		return reject(accepted)
	}
}

func durationSetter(field func(*Config) *int64) func(*Config, string) error {
	return func(c *Config, v string) error {
		d, err := ParseDuration(v)
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
	if !floatRe.MatchString(v) {
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

// DefaultNotifyOn is NOTIFY_ON's default: the end of a run, a breaker
// opening, a usage-limit wait starting and the failure guard giving up.
const DefaultNotifyOn = "run_finished,breaker_opened,usage_limited,guard_gave_up"

// webhookURL reports whether v is an absolute http or https URL with a host.
func webhookURL(v string) bool {
	u, err := url.Parse(v)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" && u.Hostname() != ""
}

func regexpReason(err error) string {
	return strings.TrimPrefix(err.Error(), "error parsing regexp: ")
}
