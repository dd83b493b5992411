package engine

import (
	"strings"

	"github.com/ralphloop/ralph_loop/analysis"
	"github.com/ralphloop/ralph_loop/events"
	"github.com/ralphloop/ralph_loop/gates"
)

// gateResult is what the quality gates decided for this loop.
type gateResult struct {
	Block, WithholdProgress bool
	Code                    *int
}

func (l *loop) gatesConfig() gates.Config {
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

// runGates runs TEST_COMMAND and QUALITY_GATES when configured.
func (l *loop) runGates(c *call, res *analysis.Result) gateResult {
	cfg := l.gatesConfig()
	if !cfg.Enabled() {
		return gateResult{}
	}
	d, err := gates.Run(l.ctx, cfg, gates.Input{Loop: l.n, ExitSignal: res.ExitSignal, HaveAnalysis: true, TestsStatus: res.TestsStatus}, l.now())
	if err != nil || !d.Ran {
		return gateResult{}
	}
	if d.Results != nil {
		l.gateResults = d.Results
		if err := l.bus.Record(events.GatesRecorded{Results: d.Results}); err != nil {
			l.bus.Note(events.Warning{Err: err})
		}
		if m := d.Results.Status(); m != nil {
			l.gates = &events.Gates{OverallStatus: m.OverallStatus, Mode: m.Mode}
		}
	}
	if d.Warning != "" {
		l.bus.Note(events.Logged{Level: events.Warn, Text: d.Warning})
	}
	code := d.ResultCode
	return gateResult{Block: d.Blocked, WithholdProgress: d.WithholdProgress, Code: &code}
}
