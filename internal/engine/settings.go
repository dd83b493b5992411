package engine

import (
	"context"
	"io"
	"regexp"
	"slices"
	"time"

	"github.com/ralphloop/ralph_loop/breaker"
	"github.com/ralphloop/ralph_loop/internal/config"
	"github.com/ralphloop/ralph_loop/internal/observe"
	"github.com/ralphloop/ralph_loop/internal/ralphdir"
	"github.com/ralphloop/ralph_loop/internal/supervise"
)

// Settings is everything the loop needs to know, resolved from flags,
// environment, .ralphrc and defaults by the config package and mapped here
// by SettingsFrom, the one place that does.
type Settings struct {
	ProjectDir string // the working directory: the project root
	PromptFile string // path as configured (relative to ProjectDir or absolute)
	// PromptFromRepo: PROMPT_FILE came from a .ralphrc, the repository's
	// choice, so the file may not leave the project.
	PromptFromRepo bool

	Driver         string   // claude-code, codex, cursor, copilot, opencode, command
	FallbackDriver string   // FALLBACK_DRIVER: another driver, "" = none
	AgentArgv      []string // PLATFORM_DRIVER=command: AGENT_COMMAND split into words
	PromptMode     string   // command driver: stdin or arg
	OutputFormat   string   // json or text
	PermissionMode string
	AllowedTools   []string
	ToolsGiven     bool // --allowed-tools or a non-default list was configured
	MinVersion     string
	Live           bool
	Verbose        bool

	MaxCallsPerHour int
	Timeout         time.Duration
	WriteTimeout    time.Duration // WRITE_TIMEOUT_MINUTES
	Inactivity      time.Duration // --inactivity-timeout
	Grace           time.Duration // SIGTERM to KILL for the agent's group
	MaxOutput       int64         // MAX_OUTPUT_MB in bytes: per call, 0 = no limit

	SessionContinuity bool
	SessionExpiry     time.Duration

	PermissionDenialMode string // continue, halt, threshold

	Breaker breaker.Config

	TestCommand          string
	QualityGates         []string
	QualityGateMode      string
	QualityGateTimeout   time.Duration
	QualityGateOnlyOnEnd bool

	ReviewMode     string // off, enhanced, ultimate
	ReviewInterval int

	LoopDelay              time.Duration
	MaxLoops               int
	IdleDelay              time.Duration
	IdleBackoff            float64
	IdleMaxDelay           time.Duration
	IdleMax                time.Duration
	StallLimit             int
	DonePattern            *regexp.Regexp
	MaxCostUSD             float64
	MaxTokens              int64
	MaxConsecutiveFailures int
	RetryMaxDelay          time.Duration // longest wait in a provider outage
	OutageMax              time.Duration // a provider outage that lasts this long stops the run; 0 = never

	UsageLimitPatterns []*regexp.Regexp // more phrases of a usage limit
	UsageStopPercent   float64          // stop before a call once a window's use reaches it; 0 = off
	UsageWarningAction string           // continue, wait, stop: what a usage warning does
	UsageLimitMaxWait  time.Duration    // longest usage-limit wait; 0 = no cap
}

// Runner runs one agent command; supervise.Run in production.
type Runner func(ctx context.Context, c supervise.Command, o supervise.Options) supervise.Outcome

// Deps are the engine's connections to the world.
type Deps struct {
	Bus      *observe.Fan  // the observers (console, logs, state store...)
	Dir      *ralphdir.Dir // read only: the plan, the prompt, the call's stderr
	State    State         // the kept state, read at start-up
	Logs     Logs          // the agent's logs
	Now      func() time.Time
	Run      Runner
	LookPath func(string) (string, error)
	Env      []string // the agent's environment (the loop's own)
	Stopper  *Stopper
	// Interactive: a terminal is on stdin (Ctrl+C skips waits; the
	// usage-limit prompt may ask).
	Interactive bool
	Stdin       io.Reader
	Version     string
	// Sandbox, when set, wraps each quality gate as the agent's calls are
	// wrapped (SANDBOX).
	Sandbox func(supervise.Command) (supervise.Command, func(), error)

	// Ticks: a terminal shows the ticking line of a call in the default
	// mode (events.AgentTick each second).
	Ticks bool
}

// SettingsFrom maps the resolved configuration onto the engine's settings,
// with projectDir as the project root.
func SettingsFrom(c *config.Config, projectDir string) Settings {
	return Settings{
		ProjectDir:             projectDir,
		PromptFile:             c.PromptFile,
		PromptFromRepo:         c.Sources["PROMPT_FILE"].Kind == config.SourceFile,
		Driver:                 c.Driver,
		FallbackDriver:         c.FallbackDriver,
		AgentArgv:              c.AgentArgv,
		PromptMode:             c.AgentPromptMode,
		OutputFormat:           c.OutputFormat,
		PermissionMode:         c.PermissionMode,
		AllowedTools:           c.AllowedTools,
		ToolsGiven:             c.Sources["ALLOWED_TOOLS"].Kind == config.SourceFlag || !slices.Equal(c.AllowedTools, config.DefaultAllowedTools()),
		MinVersion:             c.ClaudeMinVersion,
		Live:                   c.Live,
		Verbose:                c.Verbose,
		MaxCallsPerHour:        c.MaxCallsPerHour,
		Timeout:                c.AgentTimeout(),
		WriteTimeout:           c.WriteTimeout(),
		Inactivity:             c.InactivityTimeout,
		Grace:                  time.Second,
		MaxOutput:              int64(c.MaxOutputMB) << 20,
		SessionContinuity:      c.SessionContinuity,
		SessionExpiry:          c.SessionExpiry(),
		PermissionDenialMode:   c.PermissionDenialMode,
		Breaker:                c.Breaker(),
		TestCommand:            c.TestCommand,
		QualityGates:           c.QualityGates,
		QualityGateMode:        c.QualityGateMode,
		QualityGateTimeout:     c.QualityGateTimeout(),
		QualityGateOnlyOnEnd:   c.QualityGateOnCompletionOnly,
		ReviewMode:             c.ReviewMode,
		ReviewInterval:         c.ReviewInterval,
		LoopDelay:              c.LoopDelay,
		MaxLoops:               c.MaxLoops,
		IdleDelay:              c.IdleDelay,
		IdleBackoff:            c.IdleBackoff,
		IdleMaxDelay:           c.IdleMaxDelay,
		IdleMax:                c.IdleMax,
		StallLimit:             c.StallLimit,
		DonePattern:            c.DonePattern,
		MaxCostUSD:             c.MaxCostUSD,
		MaxTokens:              c.MaxTokens,
		MaxConsecutiveFailures: c.MaxConsecutiveFailures,
		RetryMaxDelay:          c.RetryMaxDelay,
		OutageMax:              c.OutageMax,
		UsageLimitPatterns:     c.UsageLimitPatterns,
		UsageStopPercent:       c.UsageStopPercent,
		UsageWarningAction:     c.UsageWarningAction,
		UsageLimitMaxWait:      c.UsageLimitMaxWait,
	}
}
