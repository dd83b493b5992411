package engine

import (
	"fmt"

	"github.com/ralphloop/ralph_loop/analysis"
	"github.com/ralphloop/ralph_loop/drivers"
	"github.com/ralphloop/ralph_loop/internal/events"
)

// analysisOptions are the options of the call's analysis, known before
// the call starts.
func (l *loop) analysisOptions(c *call) analysis.Options {
	return analysis.Options{
		Formats:              drivers.Formats(l.s.Driver),
		Loop:                 l.n,
		OutputFile:           l.dir.Path(c.outName),
		PreviousOutputLength: l.kept.OutputLength,
		PreviousErrors:       l.kept.ErrorHistory.Previous(),
		LimitPatterns:        l.s.UsageLimitPatterns,
	}
}

// analyze finishes the analysis the output log's writes fed: the log is
// never read back. A log cut down to its result record is analysed from
// the record kept in memory, as what the log now holds.
func (l *loop) analyze(c *call) (analysis.Result, error) {
	s := c.reading
	if c.collapsed != nil {
		s = analysis.NewStream(l.analysisOptions(c))
		s.Write(c.collapsed)
	}
	if s == nil {
		return analysis.Result{}, fmt.Errorf("analyse %s: no output was written", l.rel(c.outName))
	}
	res, err := s.Finish(analysis.Ending{
		ExitCode: c.outcome.ExitCode,
		TimedOut: c.outcome.Reason != 0,
		Now:      l.now(),
	})
	if err != nil {
		return res, fmt.Errorf("analyse %s: %w", l.rel(c.outName), err)
	}
	if res.SkippedLines > 0 {
		l.warn(fmt.Errorf("analyse %s: %d line(s) longer than %d MiB were not read (a reply that long is not analysed)",
			l.rel(c.outName), res.SkippedLines, analysis.MaxLine>>20))
	}
	l.noteUsage(res)
	l.quotaRecord(res)
	if c.outcome.Reason == 0 && c.outcome.ExitCode == 0 {
		l.kept.ErrorHistory.Add(l.n, res.ErrorLines)
		if res.UpdatesLastOutputLength() {
			l.kept.OutputLength = res.OutputLength
			l.kept.OutputLengthUpdates++
		}
	}
	return res, nil
}

// usageOf converts the analysis' usage to the events' (nil stays nil).
func usageOf(u *analysis.Usage) *events.Usage {
	if u == nil {
		return nil
	}
	return &events.Usage{
		InputTokens: u.InputTokens, OutputTokens: u.OutputTokens,
		CacheReadTokens: u.CacheReadTokens, CacheCreationTokens: u.CacheCreationTokens,
		CostUSD: u.CostUSD,
	}
}

// saveAnalysis keeps ra as the last call's analysis and saves it.
func (l *loop) saveAnalysis(ra analysis.ResponseAnalysis) error {
	l.kept.Analysis = &ra
	return l.save(savedAnalysis)
}

// updateExitSignals adds the call's signals to the recent ones.
func (l *loop) updateExitSignals(res analysis.Result) {
	l.kept.ExitSignals.Update(res.ResponseAnalysis())
	l.kept.HaveExitSignals = true
	l.kept.ExitSignalsUpdates++
}

// exitReason is the graceful-exit check before a call (decideExit), from
// the recent exit signals, the last analysis and the plan: the reason to
// stop, or "" to go on.
func (l *loop) exitReason() string { return l.exitCheck(l.exitFacts()).reason }

// exitAfter is the completion check after call c, whose reply res also
// brings the done pattern and a strict run's claim.
func (l *loop) exitAfter(c *call, res analysis.Result) exitCall {
	f := l.exitFacts()
	f.reply, f.text, f.donePattern, f.strict, f.claimed = true, res.ResultText, l.s.DonePattern, l.s.Strict(), c.claimed
	return l.exitCheck(f)
}

// exitCheck decides on f, keeping the signals' decision for the line that
// says it when it ends the run.
func (l *loop) exitCheck(f exitFacts) exitCall {
	v := decideExit(f)
	if v.decided {
		l.exitWhy = v.why
	}
	return v
}

// exitFacts are the completion check's facts as the run has them now.
func (l *loop) exitFacts() exitFacts {
	f := exitFacts{asking: l.askingNow(), goal: l.goal(), goalDone: l.goalDone, haveSignals: l.kept.HaveExitSignals}
	if f.asking || f.goal || !f.haveSignals {
		return f // the signals and the plan are not read
	}
	f.signals, f.lastExit = l.kept.ExitSignals, l.kept.Analysis != nil && l.kept.Analysis.Analysis.ExitSignal
	if c, ok := l.fixPlanCounts(); ok {
		f.plan = analysis.PlanProgress{Completed: c.Checked, Total: c.Total()}
	}
	return f
}

// sayExitCondition logs the exit condition that ends the run for reason,
// once, as the run ends: a completion the gates or the plan hold is not
// announced (its "Not done" line says why it goes on).
func (l *loop) sayExitCondition(reason string) {
	d := l.exitWhy
	switch {
	case d.Reason == "" || d.Reason != reason:
	case d.Reason == analysis.ExitTestSaturation:
		l.bus.Note(events.Logged{Level: events.Warn, Text: d.Message}) // a stop worth a look: only tests for loops
	default:
		l.bus.Note(events.Logged{Level: events.Info, Text: d.Message}) // the plan is done: good news, not a warning
	}
}
