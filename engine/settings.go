package engine

import (
	"context"
	"io"
	"regexp"
	"time"

	"github.com/ralphloop/ralph_loop/events"
	"github.com/ralphloop/ralph_loop/ralphdir"
	"github.com/ralphloop/ralph_loop/supervise"
)

// Settings is everything the loop needs to know, resolved from flags,
// environment, .ralphrc and defaults by the config package.
type Settings struct {
	ProjectDir string // the working directory: the project root
	PromptFile string // path as configured (relative to ProjectDir or absolute)

	Driver         string   // claude-code, codex, cursor, copilot, opencode, command
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

	BreakerNoProgress, BreakerSameError, BreakerOutputDecline, BreakerPermissionDenials, BreakerReadOnly int
	BreakerCooldown                                                                                      time.Duration
	BreakerAutoReset                                                                                     bool

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
}

// Runner runs one agent command; supervise.Run in production.
type Runner func(ctx context.Context, c supervise.Command, o supervise.Options) supervise.Outcome

// Deps are the engine's connections to the world.
type Deps struct {
	Bus      *events.Bus
	Dir      *ralphdir.Dir
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
}
