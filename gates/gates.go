package gates

import (
	"context"
	"fmt"
	"github.com/ralphloop/ralph_loop/supervise"
	"strings"
	"time"
)

// QUALITY_GATE_MODE values.
const (
	ModeWarn           = "warn"
	ModeBlock          = "block"
	ModeCircuitBreaker = "circuit-breaker"
)

// Defaults, as in the bash loop.
const (
	DefaultTimeout = 120 * time.Second
	DefaultGrace   = 2 * time.Second
	// OutputMax is how many characters of a command's output are kept.
	OutputMax = 500
	// TimeoutExitCode is the exit code recorded for a command that hit
	// QUALITY_GATE_TIMEOUT (GNU timeout's code, as the bash loop records it).
	TimeoutExitCode = 124
)

// Log lines the engine writes when it applies a Decision (WARN level).
const (
	MsgBlock          = "Quality gate block: suppressing completion signals"
	MsgCircuitBreaker = "Quality gate circuit-breaker: overriding progress signals"
)

// Config is the gate configuration.
type Config struct {
	TestCommand      string        // TEST_COMMAND
	Gates            string        // QUALITY_GATES, ";"-separated
	Mode             string        // QUALITY_GATE_MODE; "" means warn
	Timeout          time.Duration // QUALITY_GATE_TIMEOUT per command; <= 0 means DefaultTimeout
	OnCompletionOnly bool          // QUALITY_GATE_ON_COMPLETION_ONLY
	Dir              string        // project root: the commands' working directory
	Env              []string      // the commands' environment; nil inherits ralph_loop's
	Grace            time.Duration // between SIGTERM and SIGKILL on timeout; <= 0 means DefaultGrace
	// Wrap, when set, runs each command in the agent's sandbox (SANDBOX): it
	// returns the command to run instead and what to do once it has ended.
	Wrap func(supervise.Command) (supervise.Command, func(), error)
}

// Enabled reports whether any gate is configured.
func (c Config) Enabled() bool { return c.TestCommand != "" || c.Gates != "" }

// Commands splits QUALITY_GATES on ";" into trimmed, non-empty commands.
func (c Config) Commands() []string {
	var out []string
	for _, g := range strings.Split(c.Gates, ";") {
		if g = strings.TrimSpace(g); g != "" {
			out = append(out, g)
		}
	}
	return out
}

// Input is what the gates need to know about the loop that just ended.
type Input struct {
	Loop         int
	ExitSignal   bool   // the analysis' exit_signal (for OnCompletionOnly)
	HaveAnalysis bool   // a response analysis exists for this loop
	TestsStatus  string // the agent's TESTS_STATUS; "" means UNKNOWN
}

// Decision is what the engine applies after the gates ran.
type Decision struct {
	// Ran is false when no gate is configured or OnCompletionOnly skipped
	// them; then nothing is written and everything else is zero.
	Ran bool
	// OverallStatus is "pass" or "fail" ("" when not run).
	OverallStatus string
	// Blocked: block mode and a failure. Suppress this loop's completion
	// signals (has_completion_signal and exit_signal become false) and log
	// MsgBlock.
	Blocked bool
	// WithholdProgress: circuit-breaker mode and a failure. Record the loop
	// in the stagnation breaker as one without progress and with an error,
	// whatever the analysis said, and log MsgCircuitBreaker.
	WithholdProgress bool
	// Feedback is the text for the next loop's context (see Feedback).
	Feedback string
	// Warning is the WARN log line for a failure ("" on pass).
	Warning string
	// ResultCode is metrics.jsonl's quality_gate_result: 0 pass, warn-mode
	// failure or not run; 1 block-mode failure; 2 circuit-breaker failure.
	ResultCode int
	// Results is what to write to .quality_gate_results (nil when not run).
	Results *Results
}

// Run runs the configured gates for one loop, one command after another.
// now stamps the results. It returns an error only when ctx ends (the user
// stopped the loop); a failing, hanging or unstartable command is a gate
// failure, not an error.
func Run(ctx context.Context, cfg Config, in Input, now time.Time) (Decision, error) {
	if !cfg.Enabled() || (cfg.OnCompletionOnly && !in.ExitSignal) {
		return Decision{}, nil
	}
	mode := cfg.Mode
	if mode == "" {
		mode = ModeWarn
	}
	r := &Results{
		Timestamp:   now.UTC().Format("2006-01-02T15:04:05+00:00"),
		LoopNumber:  in.Loop,
		CustomGates: []CustomGate{},
		Mode:        mode,
	}
	tg, err := testGate(ctx, cfg, in)
	if err != nil {
		return Decision{}, err
	}
	r.TestGate = tg
	for _, c := range cfg.Commands() {
		o, err := run(ctx, cfg, c)
		if err != nil {
			return Decision{}, err
		}
		g := CustomGate{
			Command:         c,
			Status:          StatusPass,
			ExitCode:        o.exitCode,
			Output:          o.output,
			DurationSeconds: int(o.elapsed / time.Second),
			TimedOut:        o.timedOut,
		}
		if o.exitCode != 0 {
			g.Status = StatusFail
		}
		r.CustomGates = append(r.CustomGates, g)
	}
	r.OverallStatus = StatusPass
	if r.TestGate.Status == StatusFail || r.CustomFailures() > 0 {
		r.OverallStatus = StatusFail
	}
	return decide(r), nil
}

// decide turns results into the Decision for their mode.
func decide(r *Results) Decision {
	d := Decision{Ran: true, OverallStatus: r.OverallStatus, Results: r, Feedback: Feedback(r)}
	if r.OverallStatus != StatusFail {
		return d
	}
	d.Warning = fmt.Sprintf("Quality gate failure (mode=%s): test_gate=%s, custom_failures=%d", r.Mode, r.TestGate.Status, r.CustomFailures())
	switch r.Mode {
	case ModeBlock:
		d.Blocked, d.ResultCode = true, 1
	case ModeCircuitBreaker:
		d.WithholdProgress, d.ResultCode = true, 2
	}
	return d
}

// testGate decides the test gate: without an analysis it is skipped; with
// TEST_COMMAND the command decides; otherwise the agent's report does
// (UNKNOWN skips, FAILING fails, anything else passes).
func testGate(ctx context.Context, cfg Config, in Input) (TestGate, error) {
	if !in.HaveAnalysis {
		return TestGate{Status: StatusSkip}, nil
	}
	reported := in.TestsStatus
	if reported == "" {
		reported = "UNKNOWN"
	}
	g := TestGate{TestsStatusReported: reported}
	switch {
	case cfg.TestCommand != "":
		o, err := run(ctx, cfg, cfg.TestCommand)
		if err != nil {
			return TestGate{}, err
		}
		g.Verified, g.Output, g.Status = true, o.output, StatusPass
		if o.exitCode != 0 {
			g.Status = StatusFail
		}
	case reported == "UNKNOWN":
		g.Status = StatusSkip
	case reported == "FAILING":
		g.Status = StatusFail
	default:
		g.Status = StatusPass
	}
	return g, nil
}
