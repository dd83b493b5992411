package config

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/ralphloop/ralph_loop/breaker"
	"github.com/ralphloop/ralph_loop/internal/clip"
	"github.com/ralphloop/ralph_loop/internal/quota"
)

// Source kinds.
const (
	SourceDefault = "default"
	sourceFile    = "ralphrc"
	sourceEnv     = "env"
	sourceFlag    = "flag"
	sourceDerived = "derived"
)

// Source says where a key's value came from.
//   - Kind SourceDefault: built-in default.
//   - Kind sourceFile: File and Line of the .ralphrc assignment.
//   - Kind sourceEnv: Name is the environment variable (e.g. CLAUDE_ALLOWED_TOOLS).
//   - Kind sourceFlag: Name is the flag as "--calls".
//   - Kind sourceDerived: Name is the key it was derived from (REVIEW_MODE from REVIEW_ENABLED).
type Source struct {
	Kind string
	File string
	Line int
	Name string
}

func (s Source) String() string {
	switch s.Kind {
	case sourceFile:
		return clip.Value(s.File) + ":" + strconv.Itoa(s.Line)
	case sourceEnv:
		return "env " + s.Name
	case sourceFlag:
		return "flag " + s.Name
	case sourceDerived:
		return "derived from " + s.Name
	default:
		return "default"
	}
}

// FromRepository reports whether the value came from a .ralphrc: a file of
// the project, which whoever wrote the repository chose.
func (s Source) FromRepository() bool { return s.Kind == sourceFile }

// FromProject reports whether key's value came from the project's own
// .ralphrc (not the person's: RCOwn), the repository's choice.
func (c *Config) FromProject(key string) bool { return c.Sources[key].FromRepository() && !c.RCOwn }

// Warning is a non-fatal configuration problem: a skipped .ralphrc line, an
// ignored key, or (for maintenance commands) an invalid value replaced by its
// default. File and Line are set for .ralphrc lines.
type Warning struct {
	File string
	Line int
	Msg  string
	// Invalid marks a value the loop itself would refuse to start with
	// (accepted here only because the action does not run the loop).
	Invalid bool
}

// String formats the warning as "<file>:<line>: <msg>" (or just msg).
func (w Warning) String() string {
	if w.File == "" {
		return w.Msg
	}
	return clip.Value(w.File) + ":" + strconv.Itoa(w.Line) + ": " + w.Msg
}

// UsageError is a bad command line or configuration value. The program
// prints Error() (one line) and exits with ExitCode() (1, as the bash loop
// does for usage errors); an Unknown one goes to stderr.
type UsageError struct {
	Key      string // the flag ("--timeout") or key ("MAX_CALLS_PER_HOUR")
	Value    string // the rejected value
	Source   Source // where the value came from
	Accepted string // what would have been accepted
	Unknown  bool   // an unknown flag or stray word: printed alone on stderr, no help
	Msg      string // the full one-line message
}

func (e *UsageError) Error() string { return e.Msg }

// ShownKey is Key as a one-line message quotes it: clipped, with control
// characters escaped.
func (e *UsageError) ShownKey() string { return clip.Value(e.Key) }

// ExitCode is the process exit code for a usage error: 1.
func (e *UsageError) ExitCode() int { return 1 }

// Config is the resolved configuration: the loop's settings, and the
// engine's as they are (engine.Run reads this value). What a command is
// asked on the command line (--report's run, --clean's keep, …) is the
// command's own (cmd/ralph_loop). Relative paths are relative to
// ProjectDir (the directory the loop runs in). A field holds its key's
// value in the unit the code uses: CLAUDE_TIMEOUT_MINUTES=15 is Timeout
// 15m.
type Config struct {
	RalphDir   string // ".ralph" or an absolute path (RALPH_DIR)
	ProjectDir string // as passed to Load
	RCFile     string // the .ralphrc that was read (".ralph/.ralphrc", ".ralphrc", ...), "" if none
	// RCOwn: RCFile is the person's own (under an absolute RALPH_DIR
	// outside the project), not the project's.
	RCOwn bool

	// Agent and driver.
	Driver         string   // PLATFORM_DRIVER: claude-code, codex, cursor, copilot, opencode, command
	FallbackDriver string   // FALLBACK_DRIVER: another driver, "" = none
	AgentCommand   string   // AGENT_COMMAND as written (driver "command")
	AgentArgv      []string // AGENT_COMMAND split into words (quotes and $VAR honoured)
	PromptMode     string   // AGENT_PROMPT_MODE: stdin or arg
	OutputFormat   string   // CLAUDE_OUTPUT_FORMAT: json or text
	AllowedTools   []string // ALLOWED_TOOLS split on ',' and trimmed; empty = pass no allowlist
	// ToolsGiven: --allowed-tools or a list other than the default was
	// configured (a driver without an allowlist says it ignores it).
	ToolsGiven     bool
	PermissionMode string        // CLAUDE_PERMISSION_MODE
	Timeout        time.Duration // CLAUDE_TIMEOUT_MINUTES, 1..120 minutes
	Live           bool          // --live
	Verbose        bool          // RALPH_VERBOSE / --verbose
	// Grace is the time between SIGTERM and SIGKILL for the agent's group
	// (not a key: one second).
	Grace time.Duration

	// Project files (PROMPT_FILE, FIX_PLAN_FILE, AGENT_FILE).
	PromptFile  string
	FixPlanFile string
	AgentFile   string
	// PromptFromRepo: PROMPT_FILE came from a .ralphrc, the repository's
	// choice, so the file may not leave the project.
	PromptFromRepo bool

	// Rate limit and sessions.
	MaxCallsPerHour   int           // MAX_CALLS_PER_HOUR
	SessionContinuity bool          // SESSION_CONTINUITY / --no-continue
	SessionExpiry     time.Duration // SESSION_EXPIRY_HOURS
	KeepSessionOnStop bool          // KEEP_SESSION_ON_STOP: no session reset on a signal or a breaker-open start

	// Permission denials and write heartbeat.
	PermissionDenialMode string        // PERMISSION_DENIAL_MODE: continue, halt, threshold
	WriteTimeout         time.Duration // WRITE_TIMEOUT_MINUTES, 0 disables the heartbeat

	// Breaker is the circuit breaker's configuration: the CB_* keys, and
	// CountPermissionDenials when PERMISSION_DENIAL_MODE=threshold.
	Breaker breaker.Config

	// Quality gates.
	TestCommand          string
	QualityGates         []string      // QUALITY_GATES split on ';', trimmed, empties dropped
	QualityGateMode      string        // warn, block, circuit-breaker
	QualityGateTimeout   time.Duration // QUALITY_GATE_TIMEOUT, seconds
	QualityGateOnlyOnEnd bool          // QUALITY_GATE_ON_COMPLETION_ONLY

	// Completion (completionkeys.go).
	CompletionMode string        // COMPLETION_MODE: signals, strict
	VerifyCommand  string        // VERIFY_COMMAND, "" = off
	VerifyTimeout  time.Duration // VERIFY_TIMEOUT, seconds
	Goal           string        // --goal TEXT, "" = a run of the plan
	GoalCheck      string        // --check CMD (with --goal)

	// Review.
	ReviewMode     string // off, enhanced, ultimate (after the REVIEW_ENABLED derivation)
	ReviewEnabled  bool   // ReviewMode != "off"
	ReviewInterval int

	// Informational keys (accepted, not used by the loop itself).
	ProjectName string
	ProjectType string
	MinVersion  string // CLAUDE_MIN_VERSION

	// Trackers (docs/TASKS.md).
	TaskSources       []string      // TASK_SOURCES, lower-cased: local, beads, github (others are warned of)
	GithubTaskLabel   string        // GITHUB_TASK_LABEL, default ralph-task
	BeadsFilter       string        // BEADS_FILTER as written
	TaskWriteback     bool          // TASK_WRITEBACK / --task-writeback: claims and write-back (never from the project's .ralphrc)
	GithubCloseIssues bool          // GITHUB_CLOSE_ISSUES: write-back closes the issue (never from the project's .ralphrc)
	TaskTimeout       time.Duration // TASK_TIMEOUT: one tracker command's limit, default 60s

	// Loop control (new, all off by default except LoopDelay and
	// MaxConsecutiveFailures).
	MaxLoops               int            // MAX_LOOPS, 0 = unlimited
	SwarmWorkers           int            // --swarm N: loops at once (docs/SWARM.md), 0 = none
	LoopDelay              time.Duration  // LOOP_DELAY, default 5s
	IdleDelay              time.Duration  // IDLE_DELAY, 0 = off
	IdleBackoff            float64        // IDLE_BACKOFF, 2.0 when IDLE_DELAY is set
	IdleMaxDelay           time.Duration  // IDLE_MAX_DELAY, 0 = no cap
	IdleMax                time.Duration  // IDLE_MAX, 0 = no limit
	StallLimit             int            // STALL_LIMIT, 0 = off
	DonePattern            *regexp.Regexp // DONE_PATTERN, nil = off
	Inactivity             time.Duration  // INACTIVITY_TIMEOUT, 0 = off
	MaxCostUSD             float64        // MAX_COST_USD, 0 = off
	MaxTokens              int64          // MAX_TOKENS, 0 = off
	MaxConsecutiveFailures int            // MAX_CONSECUTIVE_FAILURES, default 5, 0 = never stop
	RetryMaxDelay          time.Duration  // RETRY_MAX_DELAY, default 30m: longest wait in a provider outage
	OutageMax              time.Duration  // OUTAGE_MAX, default 6h, 0 = no limit
	MaxOutput              int64          // MAX_OUTPUT_MB in bytes (per call), default 256 MB, 0 = no limit
	LogKeep                int            // LOG_KEEP, default 200, 0 = keep all
	LogMaxMB               int            // LOG_MAX_MB, default 50, 0 = never rotate
	EventsFile             string         // EVENTS_FILE / --events, "-" = stdout, "" = off

	// Web dashboard (--serve, --dashboard).
	ServeAddr    string // SERVE_ADDR / --serve ADDR / --dashboard ADDR
	ServeControl bool   // SERVE_CONTROL: the page offers pause, resume, skip and stop
	ServeToken   string // SERVE_TOKEN: required for controls and any non-loopback request

	// Usage limits (docs/USAGE-LIMITS.md).
	UsageLimitPatterns []*regexp.Regexp // USAGE_LIMIT_PATTERNS, nil = the built-in phrases only
	UsageStopPercent   float64          // USAGE_STOP_PERCENT, 0 = off
	UsageWarningAction string           // USAGE_WARNING_ACTION: continue, wait, stop
	UsageLimitMaxWait  time.Duration    // USAGE_LIMIT_MAX_WAIT, default 6h, 0 = no cap
	// The usage governor (docs/USAGE-LIMITS.md), on when one of these is
	// set (Governed).
	UsageLimits  []quota.Rule // USAGE_LIMITS, nil = none
	UsageReserve float64      // USAGE_RESERVE_PERCENT, 0 = none
	UsageProbe   string       // USAGE_PROBE_COMMAND (the person's own), "" = none
	UsageLedger  string       // RALPH_USAGE_LEDGER (the person's environment only), "" = the state folder's

	// The agent's questions to the person (docs/LOOP-CONTROL.md).
	AskTimeout       time.Duration // ASK_TIMEOUT, default 30m, 0 = do not wait
	AskTimeoutAction string        // ASK_TIMEOUT_ACTION: continue, skip, stop

	// The sandbox of the agent and the gates (docs/SANDBOX.md).
	Sandbox        string // SANDBOX: off, bwrap, seatbelt, container, auto
	SandboxNetwork bool   // SANDBOX_NETWORK
	SandboxImage   string // SANDBOX_IMAGE
	SandboxEngine  string // SANDBOX_ENGINE: "", docker, podman
	// SandboxRead are more files and folders the sandbox shows read-only
	// (SANDBOX_READ; "~/" is $HOME, expanded by the sandbox's user).
	SandboxRead []string
	// Notifiers (all off by default).
	NotifyOn      []string      // NOTIFY_ON: event types and derived names
	NotifyCommand string        // NOTIFY_COMMAND as written
	NotifyArgv    []string      // NOTIFY_COMMAND split into words, as AGENT_COMMAND is
	NotifyWebhook string        // NOTIFY_WEBHOOK, "" = off
	NotifyDesktop bool          // NOTIFY_DESKTOP / --notify-desktop
	NotifyTimeout time.Duration // NOTIFY_TIMEOUT, default 10s

	// Sources maps every key (the .ralphrc name, e.g. "ALLOWED_TOOLS",
	// plus "RALPH_DIR") to where its value came from.
	Sources map[string]Source
}

// UsagePolicy is the usage governor's pacing: USAGE_LIMITS, with
// USAGE_STOP_PERCENT and USAGE_RESERVE_PERCENT as their shorthands.
func (c *Config) UsagePolicy() quota.Policy {
	return quota.Policy{Limits: c.UsageLimits, Stop: c.UsageStopPercent, Reserve: c.UsageReserve}
}

// Governed reports whether the usage governor is on: USAGE_LIMITS,
// USAGE_RESERVE_PERCENT or USAGE_PROBE_COMMAND is set, or
// RALPH_USAGE_LEDGER names a ledger. Without them a run keeps no ledger
// and decides as before (USAGE_STOP_PERCENT alone reads the run's own
// reports).
func (c *Config) Governed() bool {
	return len(c.UsageLimits) > 0 || c.UsageReserve > 0 || strings.TrimSpace(c.UsageProbe) != "" || c.UsageLedger != ""
}

// defaultTools returns the default ALLOWED_TOOLS list (a new slice).
func defaultTools() []string {
	return splitList(defaultAllowedTools, ",")
}

func (s Source) describe() string {
	if s.Kind == sourceFlag {
		return s.Name
	}
	return s.String()
}

// invalidValue builds the usual "Invalid KEY: 'value' (source); accepted"
// error.
func invalidValue(key, value string, src Source, accepted string) *UsageError {
	msg := fmt.Sprintf("Invalid %s: '%s'", key, clip.Value(value))
	if src.Kind != sourceFlag {
		msg += " (" + src.describe() + ")"
	}
	if accepted != "" {
		msg += "; " + accepted
	}
	return &UsageError{Key: key, Value: value, Source: src, Accepted: accepted, Msg: msg}
}
