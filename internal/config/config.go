package config

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/ralphloop/ralph_loop/breaker"
	"github.com/ralphloop/ralph_loop/internal/clip"
)

// runsLoop reports whether the command starts the loop (or previews its
// next call). Only then are
// environment and .ralphrc values validated strictly (see Load).
func runsLoop(command string) bool {
	return command == "" || command == "monitor" || command == "dry-run"
}

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
		return show(s.File) + ":" + strconv.Itoa(s.Line)
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
	return show(w.File) + ":" + strconv.Itoa(w.Line) + ": " + w.Msg
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
func (e *UsageError) ShownKey() string { return show(e.Key) }

// ExitCode is the process exit code for a usage error: 1.
func (e *UsageError) ExitCode() int { return 1 }

// Config is the resolved configuration, and the engine's settings as they
// are (engine.Run reads this value). Relative paths are relative to
// ProjectDir (the directory the loop runs in). A field holds its key's value
// in the unit the code uses: CLAUDE_TIMEOUT_MINUTES=15 is Timeout 15m.
type Config struct {
	// Command is the command the command line asks for, named by its flag
	// without the dashes ("status", "dry-run", "help-all", ...); "" is the
	// loop itself.
	Command    string
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
	ProjectName     string
	ProjectType     string
	TaskSources     string
	GithubTaskLabel string
	BeadsFilter     string
	MinVersion      string // CLAUDE_MIN_VERSION

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
	ServeAddr    string   // SERVE_ADDR / --serve ADDR / --dashboard ADDR
	ServeControl bool     // SERVE_CONTROL: the page offers pause, resume, skip and stop
	ServeToken   string   // SERVE_TOKEN: required for controls and any non-loopback request
	Dashboard    bool     // --dashboard: run the loop and serve its dashboard
	Projects     []string // --serve --projects DIR...

	// Usage limits (docs/USAGE-LIMITS.md).
	UsageLimitPatterns []*regexp.Regexp // USAGE_LIMIT_PATTERNS, nil = the built-in phrases only
	UsageStopPercent   float64          // USAGE_STOP_PERCENT, 0 = off
	UsageWarningAction string           // USAGE_WARNING_ACTION: continue, wait, stop
	UsageLimitMaxWait  time.Duration    // USAGE_LIMIT_MAX_WAIT, default 6h, 0 = no cap

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

	// Arguments of the non-loop actions.
	AnalyzeFile   string // --analyze FILE
	CleanKeep     int    // --clean --keep N; -1 when not given (LOG_KEEP applies)
	DoctorMonitor bool   // --doctor --monitor: check what a monitored run needs
	NotifyTest    bool   // --doctor --notify-test: send a test notification to each notifier
	JSON          bool   // --json (with --report, --status or --dry-run)
	ReportRun     string // --run ID (with --report)

	// Sources maps every key (the .ralphrc name, e.g. "ALLOWED_TOOLS",
	// plus "RALPH_DIR") to where its value came from.
	Sources map[string]Source
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
	msg := fmt.Sprintf("Invalid %s: '%s'", key, show(value))
	if src.Kind != sourceFlag {
		msg += " (" + src.describe() + ")"
	}
	if accepted != "" {
		msg += "; " + accepted
	}
	return &UsageError{Key: key, Value: value, Source: src, Accepted: accepted, Msg: msg}
}

// show makes a user-supplied string safe inside a one-line message: control
// characters (newlines, escape sequences) are written as Go escapes, and a
// long value is clipped to showMax bytes with a note of its full length.
func show(s string) string {
	out := s
	if strings.IndexFunc(s, unicode.IsControl) >= 0 {
		q := strconv.Quote(s)
		out = q[1 : len(q)-1]
	}
	if len(out) > showMax {
		out = clip.Bytes(out, showMax) + fmt.Sprintf("… (%d bytes)", len(s))
	}
	return out
}

// showMax is how much of a value a message quotes.
const showMax = 200
