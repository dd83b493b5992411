package engine

import (
	"bufio"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/ralphloop/ralph_loop/analysis"
	"github.com/ralphloop/ralph_loop/events"
	"github.com/ralphloop/ralph_loop/fixplan"
	"github.com/ralphloop/ralph_loop/internal/clip"
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

// applyPlanDelta is enforce_fix_plan_progress_tracking.
func (l *loop) applyPlanDelta(res *analysis.Result, before, after int) {
	tr := fixplan.Track(res.TasksCompletedThisLoop, before, after)
	if res.ApplyFixPlanDelta(after - before) {
		l.bus.Warnf("%s", tr.Warning())
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
		l.bus.Warnf("%v", err)
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
		l.bus.Warnf("%s", d.Message) // a stop worth a look: only tests for loops
	default:
		l.bus.Infof("%s", d.Message) // the plan is done: good news, not a warning
	}
	return d.Reason
}

// printAnalysisSummary is log_analysis_summary: a short box on stdout.
func (l *loop) printAnalysisSummary(res analysis.Result) {
	w := l.deps.Stdout
	fmt.Fprintf(w, "%s╔════════════════════════════════════════════════════════════╗\n", l.colour(blue))
	fmt.Fprintf(w, "║           Response Analysis - Loop #%-23d║\n", l.n)
	fmt.Fprintf(w, "╚════════════════════════════════════════════════════════════╝%s\n", l.colour(reset))
	fmt.Fprintf(w, "Exit Signal:      %v\n", res.ExitSignal)
	fmt.Fprintf(w, "Confidence:       %d%%\n", res.ConfidenceScore)
	fmt.Fprintf(w, "Test Only:        %v\n", res.IsTestOnly)
	fmt.Fprintf(w, "Files Changed:    %d\n", res.FilesModified)
	if sum := boxSummary(res.WorkSummary); sum != "" {
		fmt.Fprintf(w, "Summary:          %s\n", clip.Bytes(sum, 200))
	}
	fmt.Fprintln(w)
}

var (
	// statusBlock is the RALPH_STATUS block (to its end marker, or to the
	// end of the reply when the marker is missing).
	statusBlock = regexp.MustCompile(`(?s)-{3}\s*RALPH_STATUS\s*-{3}.*?(-{3}\s*END_RALPH_STATUS\s*-{3}|$)`)
	// summaryLabel is a leading "Summary:" (also "**Summary:**", "## Summary").
	summaryLabel = regexp.MustCompile(`(?i)^[\s#*_>-]*summary\s*:?[\s*_]*`)
	summaryLine  = regexp.MustCompile(`(?im)^[\s#*_>-]*summary\b[\s*_]*:?[\s*_]*(\S.*)$`)
)

// boxSummary is the agent's own summary as the Response Analysis box
// shows it: without the RALPH_STATUS block, and without a "Summary:" label
// of its own (the box has one), on one line. A reply with a "Summary:"
// line is summarised by that line.
func boxSummary(s string) string {
	s = statusBlock.ReplaceAllString(s, " ")
	if m := summaryLine.FindStringSubmatch(s); m != nil {
		s = m[1]
	}
	for {
		t := summaryLabel.ReplaceAllString(s, "")
		if t == s {
			break
		}
		s = t
	}
	return oneLine(s)
}

// usageLimit handles the provider's usage limit (loop.md §5.4 as
// intended): ask on a terminal, otherwise wait; an unattended run never
// exits on it. The failure guard does not count it: waiting it out is the
// remedy.
func (l *loop) usageLimit(c *call, res analysis.Result) (Result, bool) {
	l.bus.Errorf("🚫 Claude API 5-hour usage limit reached")
	it := l.iterationRecord(c, res, "api_limit")
	it.DriverExitCode = events.IntPtr(c.outcome.ExitCode)
	l.emit(events.Event{Type: events.IterationFailed, Iteration: it})
	wait := time.Hour
	if res.UsageLimitResetsAt > 0 {
		if until := time.Unix(res.UsageLimitResetsAt, 0); until.After(l.now()) {
			wait = until.Sub(l.now()) + 5*time.Second
		}
	}
	until := l.now().Add(wait)
	l.emit(events.Event{Type: events.UsageLimited, Action: "api_limit", Status: "paused", Wait: "usage_limit", Delay: wait, Until: &until, Reason: res.UsageLimitReason})
	l.bus.Warnf("🛑 Claude API 5-hour limit reached!")
	if l.deps.Interactive && l.deps.Stdin != nil && l.askExit() {
		l.bus.Infof("User chose to exit. Exiting loop...")
		return Result{Code: ExitUsageLimit, Action: "api_limit_exit", Status: "stopped", Reason: "api_5hour_limit",
			Message: "stopped at the usage limit; run ralph_loop again once it has reset"}, true
	}
	l.bus.Infof("Waiting %s before retrying (until %s)...", wait.Round(time.Minute), until.Local().Format("15:04:05"))
	if _, err := l.wait("usage_limit", wait, "Time until retry"); err != nil {
		return l.signalExit(), true
	}
	return Result{}, false
}

// askExit shows the reference's prompt and reads one answer (30 s).
func (l *loop) askExit() bool {
	w := l.deps.Stdout
	fmt.Fprint(w, "\nThe Claude API 5-hour usage limit has been reached.\nYou can either:\n  1) Wait for the limit to reset (usually within an hour)\n  2) Exit the loop and try again later\n\nChoose an option (1 or 2): ")
	answer := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(l.deps.Stdin).ReadString('\n')
		answer <- strings.TrimSpace(line)
	}()
	select {
	case a := <-answer:
		return a == "2"
	case <-time.After(30 * time.Second):
		fmt.Fprintln(w)
		l.bus.Infof("No answer within 30 seconds: waiting for the limit to reset.")
		return false
	case <-l.ctx.Done():
		return false
	}
}
