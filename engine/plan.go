package engine

import (
	"context"
	"path/filepath"
	"strings"

	"github.com/ralphloop/ralph_loop/analysis"
	"github.com/ralphloop/ralph_loop/events"
	"github.com/ralphloop/ralph_loop/fixplan"
	"github.com/ralphloop/ralph_loop/gates"
	"github.com/ralphloop/ralph_loop/ralphdir"
	"github.com/ralphloop/ralph_loop/review"
	"github.com/ralphloop/ralph_loop/templates"
)

// fixPlanCounts counts @fix_plan.md's boxes; ok is false without a plan.
func (l *loop) fixPlanCounts() (fixplan.Counts, bool) {
	data, found, err := l.dir.ReadFile(ralphdir.FixPlan)
	if err != nil || !found {
		return fixplan.Counts{}, false
	}
	return fixplan.Count(data), true
}

// collapseStories drops the detail lines of checked stories.
func (l *loop) collapseStories() {
	data, found, err := l.dir.ReadFile(ralphdir.FixPlan)
	if err != nil || !found {
		return
	}
	if out, changed := fixplan.Collapse(data); changed {
		if err := l.dir.WriteFile(ralphdir.FixPlan, out); err != nil {
			l.bus.Warnf("%v", err)
		}
	}
}

// loopContext builds the one system-prompt addition for this call.
func (l *loop) loopContext(c *call) string {
	in := templates.ContextInput{
		Loop:           l.n,
		SessionResumed: c.resumed,
		BreakerState:   l.brk.State,
		DiffSummary:    l.lastSummary,
		WriteTimedOut:  l.dir.Exists(ralphdir.WriteHeartbeatTrigger),
		// --no-continue sends no loop state, only review and heartbeat text.
		LoopStateOff: !l.s.SessionContinuity,
	}
	if data, found, _ := l.dir.ReadFile(ralphdir.FixPlan); found {
		counts := fixplan.Count(data)
		in.HaveFixPlan, in.Remaining, in.NextTask = true, counts.Unchecked, fixplan.NextTask(data)
	}
	l.dir.ReadValid(ralphdir.ResponseAnalysis, func(b []byte) error {
		ra, err := analysis.ParseResponseAnalysis(b)
		in.PreviousSummary = ra.Analysis.WorkSummary
		return err
	})
	if res, err := gates.Load(l.dir); err == nil && res != nil {
		in.QualityGateFeedback = gates.Feedback(res)
	}
	if f, found, err := review.Load(l.dir); err == nil && found {
		in.ReviewContext = review.ContextFor(f)
	}
	if in.WriteTimedOut {
		l.dir.Remove(ralphdir.WriteHeartbeatTrigger)
	}
	return templates.LoopContext(in)
}

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
		if err := gates.Save(l.dir, d.Results); err != nil {
			l.bus.Warnf("%v", err)
		}
		if m := d.Results.Status(); m != nil {
			l.gates = &events.Gates{OverallStatus: m.OverallStatus, Mode: m.Mode}
		}
	}
	if d.Warning != "" {
		l.bus.Warnf("%s", d.Warning)
	}
	code := d.ResultCode
	return gateResult{Block: d.Blocked, WithholdProgress: d.WithholdProgress, Code: &code}
}

// maybeReview runs the periodic code review after a successful loop
// (loop.md §3.6): a read-only agent call whose findings reach the next
// loop's context.
func (l *loop) maybeReview(res analysis.Result) {
	if l.s.ReviewMode == "" || l.s.ReviewMode == "off" {
		return
	}
	ctx := l.ctx
	gitOK := l.git.isRepo(ctx)
	head, dirty := "", false
	if gitOK {
		head, dirty = l.git.head(ctx), l.git.porcelain(ctx) != ""
	}
	last, _ := review.LoadLastSHA(l.dir)
	if gitOK && last != "" && head != last && !l.git.committedBeyondOwned(ctx, last, head) {
		head = last // commits of the loop's own files are nothing to review
	}
	if !review.Due(review.DueInput{
		Loop: l.n, Mode: l.s.ReviewMode, Interval: l.s.ReviewInterval, FixPlanDelta: res.FixPlanCompletedDelta,
		BreakerState: l.brk.State, GitOK: gitOK, HeadSHA: head, LastSHA: last, Dirty: dirty,
	}) {
		return
	}
	promptPath := l.dir.Path(ralphdir.ReviewPrompt)
	prompt, err := ralphdir.ReadFileCapped(promptPath, ralphdir.TextCap)
	if err != nil {
		l.bus.Warnf("%s", review.MissingPromptWarning(l.rel(ralphdir.ReviewPrompt)))
		return
	}
	l.bus.Infof("%s", review.StartMessage(l.n))
	committed, _ := l.git.run(ctx, "diff", "--stat", review.DiffRange(last))
	uncommitted, _ := l.git.run(ctx, "diff", "--stat")
	p := review.BuildPrompt(prompt, review.DiffContext(committed, uncommitted))
	spec, err := l.drv.Build(l.reviewRequest(p))
	if err != nil {
		l.bus.Warnf("review: %v", err)
		return
	}
	logPath := l.dir.Path(review.LogName(l.n))
	f, err := l.dir.Create(review.LogName(l.n))
	if err != nil {
		l.bus.Warnf("review: %v", err)
		return
	}
	o := l.deps.Run(ctx, toCommand(spec), l.callOptions(f, f))
	f.Close()
	if ctx.Err() != nil {
		return
	}
	_ = o // failures are ignored, as in the reference
	if rr, _, err := analysis.AnalyzeFile(logPath, analysis.Options{Driver: l.s.Driver}); err == nil {
		l.spend(rr.Usage) // a review call costs like any other
	}
	if head != "" {
		review.SaveLastSHA(l.dir, head)
	}
	out, _ := ralphdir.ReadFileCapped(logPath, ralphdir.LogCap)
	findings, perr := review.ParseFindings(out)
	if perr == nil {
		if err := review.Save(l.dir, findings); err != nil {
			l.bus.Warnf("%v", err)
		}
	}
	level, msg := review.Outcome(findings, perr)
	l.bus.Log(events.Level(level), "%s", msg)
	l.emit(events.Event{Type: events.ReviewCompleted, Message: msg})
}

var _ = filepath.Join
var _ = context.Background
