package engine

import (
	"bytes"

	"github.com/ralphloop/ralph_loop/analysis"
	"github.com/ralphloop/ralph_loop/drivers"
	"github.com/ralphloop/ralph_loop/events"
	"github.com/ralphloop/ralph_loop/ralphdir"
	"github.com/ralphloop/ralph_loop/review"
)

// maybeReview runs the periodic code review after a successful loop: a
// read-only agent call whose findings reach the next loop's context.
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
	last := l.reviewSHA
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
	f, err := l.logs.CreateLog(review.LogName(l.n))
	if err != nil {
		l.bus.Warnf("review: %v", err)
		return
	}
	// A failed review call is ignored, as the bash loop ignores it.
	l.deps.Run(ctx, toCommand(spec), l.callOptions(f, f))
	f.Close()
	if ctx.Err() != nil {
		return
	}
	// The review's log is read once, for its cost and its findings.
	out, rerr := ralphdir.ReadFileCapped(logPath, ralphdir.LogCap)
	opts := analysis.Options{Driver: l.s.Driver, OutputFile: logPath}
	if rerr == nil {
		if rr, err := analysis.Analyze(bytes.NewReader(out), opts); err == nil {
			l.spend(rr.Usage) // a review call costs like any other
		}
	} else if rr, _, err := analysis.AnalyzeFile(logPath, opts); err == nil {
		l.spend(rr.Usage)
	}
	if head != "" {
		l.reviewSHA = head
		l.bus.Record(events.ReviewSHARecorded{SHA: head})
	}
	findings, perr := review.ParseFindings(out)
	if perr == nil {
		l.findings = &findings
		if err := l.bus.Record(events.FindingsRecorded{Findings: findings}); err != nil {
			l.bus.Warnf("%v", err)
		}
	}
	level, msg := review.Outcome(findings, perr)
	l.bus.Log(events.Level(level), "%s", msg)
	l.emit(events.Event{Type: events.ReviewCompleted, Message: msg})
}

// reviewRequest is the review call: read-only tools, no session, the
// review context as the system-prompt addition.
func (l *loop) reviewRequest(p review.Prompt) drivers.Request {
	req := l.request(p.Prompt, p.SystemContext, "")
	req.Live = false
	if l.drv.SupportsAllowedTools() {
		req.AllowedTools = review.ReadOnlyTools
	}
	return req
}
