package engine

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/ralphloop/ralph_loop/analysis"
	"github.com/ralphloop/ralph_loop/events"
	"github.com/ralphloop/ralph_loop/ralphdir"
)

// errorHistoryFile keeps the error lines of recent loops, so that the same
// errors repeating across loops are recognised (stuck-loop detection). It
// lives under logs/, which bmalph's .gitignore hides: the bash loop has no
// such file, so it must not show in git status. oldErrorHistoryFile is
// where earlier versions kept it.
const (
	errorHistoryFile    = "logs/.error_history"
	oldErrorHistoryFile = ".error_history"
)

// analyze reads the call's output file.
func (l *loop) analyze(c *call) (analysis.Result, error) {
	opts := analysis.Options{
		Driver:     l.s.Driver,
		Loop:       l.n,
		OutputFile: l.dir.Path(c.outName),
		Now:        l.now(),
		ExitCode:   c.outcome.ExitCode,
		TimedOut:   c.outcome.Reason != 0,
	}
	l.dir.ReadValid(ralphdir.LastOutputLength, func(b []byte) error {
		n, err := strconv.Atoi(strings.TrimSpace(string(b)))
		opts.PreviousOutputLength = n
		return err
	})
	var hist analysis.ErrorHistory
	l.dir.ReadValid(errorHistoryFile, func(b []byte) error {
		h, err := analysis.ParseErrorHistory(b)
		hist = h
		return err
	})
	opts.PreviousErrors = hist.Previous()
	res, _, err := analysis.AnalyzeFile(l.dir.Path(c.outName), opts)
	if err != nil {
		return res, fmt.Errorf("analyse %s: %w", l.rel(c.outName), err)
	}
	if c.outcome.Reason == 0 && c.outcome.ExitCode == 0 {
		hist.Add(l.n, res.ErrorLines)
		if b, err := hist.Marshal(); err == nil {
			if l.dir.WriteFile(errorHistoryFile, b) == nil {
				l.dir.Remove(oldErrorHistoryFile)
			}
		}
		if res.UpdatesLastOutputLength() {
			l.dir.WriteFile(ralphdir.LastOutputLength, []byte(strconv.Itoa(res.OutputLength)+"\n"))
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

func (l *loop) saveAnalysis(res analysis.Result) error {
	b, err := res.ResponseAnalysis().Marshal()
	if err != nil {
		return fmt.Errorf("encode %s: %w", l.dir.Path(ralphdir.ResponseAnalysis), err)
	}
	return l.dir.WriteFile(ralphdir.ResponseAnalysis, b)
}

// loadExitSignals reads .exit_signals (found=false when missing; a corrupt
// file is moved aside).
func (l *loop) loadExitSignals() (analysis.ExitSignals, bool) {
	var s analysis.ExitSignals
	found, _ := l.dir.ReadValid(ralphdir.ExitSignals, func(b []byte) error {
		v, err := analysis.ParseExitSignals(b)
		s = v
		return err
	})
	return s, found
}

func (l *loop) updateExitSignals(res analysis.Result) {
	s, _ := l.loadExitSignals()
	s.Update(res.ResponseAnalysis())
	b, err := s.Marshal()
	if err == nil {
		err = l.dir.WriteFile(ralphdir.ExitSignals, b)
	}
	if err != nil {
		l.bus.Note(events.Warning{Err: err})
	}
}

// exitReason is should_exit_gracefully: "" to go on.
func (l *loop) exitReason() string {
	s, found := l.loadExitSignals()
	if !found {
		return ""
	}
	last := false
	var ra analysis.ResponseAnalysis
	l.dir.ReadValid(ralphdir.ResponseAnalysis, func(b []byte) error {
		v, err := analysis.ParseResponseAnalysis(b)
		ra = v
		return err
	})
	last = ra.Analysis.ExitSignal
	var plan analysis.PlanProgress
	if c, ok := l.fixPlanCounts(); ok {
		plan = analysis.PlanProgress{Completed: c.Checked, Total: c.Total()}
	}
	d := s.Decide(last, plan)
	switch {
	case d.Reason == "":
	case d.Reason == analysis.ExitTestSaturation:
		l.bus.Note(events.Logged{Level: events.Warn, Text: d.Message}) // a stop worth a look: only tests for loops
	default:
		l.bus.Note(events.Logged{Level: events.Info, Text: d.Message}) // the plan is done: good news, not a warning
	}
	return d.Reason
}
