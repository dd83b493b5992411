package engine

import (
	"fmt"

	"github.com/ralphloop/ralph_loop/analysis"
	"github.com/ralphloop/ralph_loop/drivers"
	"github.com/ralphloop/ralph_loop/internal/events"
	"github.com/ralphloop/ralph_loop/internal/ralphdir"
	"github.com/ralphloop/ralph_loop/internal/review"
)

// maybeReview runs the periodic code review after a successful loop: a
// read-only agent call whose findings reach the next loop's context.
func (l *loop) maybeReview(res analysis.Result) {
	if l.s.ReviewMode == "" || l.s.ReviewMode == "off" {
		return
	}
	ctx := l.ctx
	gitOK := l.git.InRepository(ctx)
	head, dirty := "", false
	if gitOK {
		head, dirty = l.git.Commit(ctx), l.git.Uncommitted(ctx) != ""
	}
	last := l.kept.ReviewSHA
	if gitOK && last != "" && head != last && !l.git.WorkCommitted(ctx, last, head) {
		head = last // commits of the loop's own files are nothing to review
	}
	if !review.Due(review.DueInput{
		Loop: l.n, Mode: l.s.ReviewMode, Interval: l.s.ReviewInterval, FixPlanDelta: res.FixPlanCompletedDelta,
		BreakerState: l.kept.Breaker.State, GitOK: gitOK, HeadSHA: head, LastSHA: last, Dirty: dirty,
	}) {
		return
	}
	prompt, err := l.project.ReviewPrompt()
	if err != nil {
		l.bus.Note(events.Logged{Level: events.Warn, Text: review.MissingPromptWarning(l.rel(ralphdir.ReviewPrompt))})
		return
	}
	l.bus.Note(events.Logged{Level: events.Info, Text: review.StartMessage(l.n)})
	diffStat := func(rangeSpec string) string { return l.git.DiffSummary(ctx, rangeSpec) }
	spec, err := l.drv.Build(l.reviewRequest(review.BuildPrompt(prompt, last, diffStat)))
	if err != nil {
		l.warn(fmt.Errorf("review: %w", err))
		return
	}
	f, err := l.logs.CreateLog(review.LogName(l.n))
	if err != nil {
		l.warn(fmt.Errorf("review: %w", err))
		return
	}
	// The review's log is written once and never read back: its cost and
	// its findings come from the same writes.
	log := &keptLog{
		log:   f,
		s:     analysis.NewStream(analysis.Options{Formats: drivers.Formats(l.s.Driver), OutputFile: l.dir.Path(review.LogName(l.n))}),
		limit: ralphdir.LogCap,
	}
	// A failed review call is ignored, as the bash loop ignores it.
	l.plan.stale()
	l.deps.Agent.Review(ctx, spec, l.callOptions(log, log))
	f.Close()
	rr, err := log.s.Finish(analysis.Ending{})
	if ctx.Err() != nil {
		return
	}
	if err == nil {
		l.spend(rr.Usage) // a review call costs like any other
		l.quotaRecord(rr)
	}
	if head != "" {
		l.kept.ReviewSHA = head
	}
	findings, perr := review.ParseFindings(log.kept) // nil when over LogCap
	if perr == nil {
		l.kept.Findings = &findings
	}
	l.save(savedReview)
	level, msg := review.Outcome(findings, perr)
	l.bus.Reviewed(l.at("", ""), events.Review{Level: events.Level(level), Text: msg})
}

// reviewRequest is the review call: read-only tools, no session, the
// review context as the system-prompt addition.
func (l *loop) reviewRequest(prompt, systemContext string) drivers.Request {
	req := l.request(prompt, systemContext, "")
	req.Live = false
	if l.drv.SupportsAllowedTools() {
		req.AllowedTools = review.ReadOnlyTools
	}
	return req
}
