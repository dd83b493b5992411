package engine

import (
	"strings"

	"github.com/ralphloop/ralph_loop/analysis"
	"github.com/ralphloop/ralph_loop/internal/gates"
)

// gateResult is what the quality gates decided for this loop.
type gateResult struct {
	Block, WithholdProgress bool
	Code                    *int
}

func (l *loop) gatesConfig() gates.Config {
	if l.s.Goal != "" {
		// --goal: the check is the test gate, blocking, after every call.
		return gates.Config{TestCommand: l.s.GoalCheck, Gates: strings.Join(l.s.QualityGates, ";"), Mode: gates.ModeBlock,
			Timeout: l.s.QualityGateTimeout, Dir: l.s.ProjectDir, Env: l.deps.Env, Wrap: l.deps.Sandbox}
	}
	return gates.Config{
		TestCommand:      l.s.TestCommand,
		Gates:            strings.Join(l.s.QualityGates, ";"),
		Mode:             l.s.QualityGateMode,
		Timeout:          l.s.QualityGateTimeout,
		OnCompletionOnly: l.s.QualityGateOnlyOnEnd,
		Dir:              l.s.ProjectDir,
		Env:              l.deps.Env,
		Wrap:             l.deps.Sandbox,
	}
}

// runGates runs TEST_COMMAND and QUALITY_GATES when configured, after
// call c.
func (l *loop) runGates(c *call, res *analysis.Result) gateResult {
	if !l.gatesConfig().Enabled() {
		return gateResult{}
	}
	d, ok := l.gateRun(gates.Input{Loop: l.n, ExitSignal: res.ExitSignal, HaveAnalysis: true, TestsStatus: res.TestsStatus}, c.stamp)
	if !ok {
		return gateResult{}
	}
	code := d.ResultCode
	return gateResult{Block: d.Blocked, WithholdProgress: d.WithholdProgress, Code: &code}
}
