package gates

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/ralphloop/ralph_loop/internal/supervise"
)

// QUALITY_GATE_MODE values.
const (
	ModeWarn           = "warn"
	ModeBlock          = "block"
	modeCircuitBreaker = "circuit-breaker"
)

// Defaults, as in the bash loop.
const (
	defaultTimeout = 120 * time.Second
	defaultGrace   = 2 * time.Second
	// outputMax is how many characters of a command's output are kept.
	outputMax = 500
	// timeoutExitCode is the exit code recorded for a command that hit
	// QUALITY_GATE_TIMEOUT (GNU timeout's code, as the bash loop records it).
	timeoutExitCode = 124
)

// Config is the gate configuration.
type Config struct {
	TestCommand      string        // TEST_COMMAND
	Gates            string        // QUALITY_GATES, ";"-separated
	Mode             string        // QUALITY_GATE_MODE; "" means warn
	Timeout          time.Duration // QUALITY_GATE_TIMEOUT per command; <= 0 means defaultTimeout
	OnCompletionOnly bool          // QUALITY_GATE_ON_COMPLETION_ONLY
	Dir              string        // project root: the commands' working directory
	Env              []string      // the commands' environment; nil inherits ralph_loop's
	Grace            time.Duration // between SIGTERM and SIGKILL on timeout; <= 0 means defaultGrace
	// Log, when set, receives each command's whole output (stdout and
	// stderr as 2>&1 gives them) between a line naming the command and a
	// line with its exit code; LogMax bounds each command's output there
	// (head and tail, as supervise.NewHeadTail keeps them; <= 0 keeps all).
	// A write that fails is dropped: the log never fails a gate.
	Log    io.Writer
	LogMax int64
	// Wrap, when set, runs each command in the agent's sandbox (SANDBOX): it
	// returns the command to run instead and what to do once it has ended.
	Wrap func(supervise.Command) (supervise.Command, func(), error)
}

// Enabled reports whether any gate is configured.
func (c Config) Enabled() bool { return c.TestCommand != "" || c.Gates != "" }

// commands splits QUALITY_GATES on ";" into trimmed, non-empty commands.
func (c Config) commands() []string {
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
	// signals (has_completion_signal and exit_signal become false) and warn
	// that they are.
	Blocked bool
	// WithholdProgress: circuit-breaker mode and a failure. Record the loop
	// in the stagnation breaker as one without progress and with an error,
	// whatever the analysis said, and warn that progress is overridden.
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
	// Failures are the gates that failed, test gate first.
	Failures []Failure
}

// Names of the gates in a Failure.
const (
	GateTest        = "TEST_COMMAND"  // the test gate, decided by TEST_COMMAND
	GateReported    = "TESTS_STATUS"  // the test gate, decided by the agent's TESTS_STATUS: FAILING
	GateQualityGate = "QUALITY_GATES" // one of the QUALITY_GATES commands
)

// Failure is one failed gate.
type Failure struct {
	Gate     string // GateTest, GateReported or GateQualityGate
	Command  string // the command that failed ("" for GateReported)
	ExitCode int
	TimedOut bool
	Tail     string // the end of its output (tail)
}

// tailMax is how many characters of a failed command's output end its
// Failure keeps.
const tailMax = 1000

// tail is the end of a command's output for a person or the agent to
// read: colour codes removed, other control characters (a NUL cannot go
// into the agent's argv) turned into spaces, trailing blank lines
// dropped, and cut to its last tailMax characters (starting at a line
// when one starts there).
func tail(out string) string {
	out = strings.Map(func(r rune) rune {
		if r < 0x20 && r != '\n' && r != '\t' || r == 0x7f {
			return ' '
		}
		return r
	}, ansiRe().ReplaceAllString(out, ""))
	out = strings.TrimRight(out, " \t\n")
	r := []rune(out)
	if len(r) <= tailMax {
		return out
	}
	t := string(r[len(r)-tailMax:])
	if i := strings.IndexByte(t, '\n'); i >= 0 && i < len(t)-1 {
		t = t[i+1:]
	}
	return t
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
	tg, to, err := testGate(ctx, cfg, in)
	if err != nil {
		return Decision{}, err
	}
	r.TestGate = tg
	var failures []Failure
	switch {
	case tg.Status != StatusFail:
	case to != nil:
		failures = append(failures, Failure{Gate: GateTest, Command: cfg.TestCommand, ExitCode: to.exitCode, TimedOut: to.timedOut, Tail: to.tail})
	default:
		failures = append(failures, Failure{Gate: GateReported})
	}
	for _, c := range cfg.commands() {
		o, err := run(ctx, cfg, c)
		if err != nil {
			return Decision{}, err
		}
		if o.exitCode != 0 {
			failures = append(failures, Failure{Gate: GateQualityGate, Command: c, ExitCode: o.exitCode, TimedOut: o.timedOut, Tail: o.tail})
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
	if r.TestGate.Status == StatusFail || r.customFailures() > 0 {
		r.OverallStatus = StatusFail
	}
	d := decide(r)
	d.Failures = failures
	return d, nil
}

// decide turns results into the Decision for their mode.
func decide(r *Results) Decision {
	d := Decision{Ran: true, OverallStatus: r.OverallStatus, Results: r, Feedback: Feedback(r)}
	if r.OverallStatus != StatusFail {
		return d
	}
	d.Warning = fmt.Sprintf("Quality gate failure (mode=%s): test_gate=%s, custom_failures=%d", r.Mode, r.TestGate.Status, r.customFailures())
	switch r.Mode {
	case ModeBlock:
		d.Blocked, d.ResultCode = true, 1
	case modeCircuitBreaker:
		d.WithholdProgress, d.ResultCode = true, 2
	}
	return d
}

// testGate decides the test gate: without an analysis it is skipped; with
// TEST_COMMAND the command decides (and its outcome is returned);
// otherwise the agent's report does (UNKNOWN skips, FAILING fails,
// anything else passes).
func testGate(ctx context.Context, cfg Config, in Input) (TestGate, *outcome, error) {
	if !in.HaveAnalysis {
		return TestGate{Status: statusSkip}, nil, nil
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
			return TestGate{}, nil, err
		}
		g.Verified, g.Output, g.Status = true, o.output, StatusPass
		if o.exitCode != 0 {
			g.Status = StatusFail
		}
		return g, &o, nil
	case reported == "UNKNOWN":
		g.Status = statusSkip
	case reported == "FAILING":
		g.Status = StatusFail
	default:
		g.Status = StatusPass
	}
	return g, nil, nil
}
