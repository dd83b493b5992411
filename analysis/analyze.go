package analysis

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// pick decides the output's shape, the way detect_output_format and
// normalize_json_output do, and returns nil for text.
func (rd *reading) pick() *Reply {
	switch {
	case !rd.json || rd.docs == 0:
		return nil
	case rd.docs == 1 && rd.invalid == 0:
		return rd.single(true) // a lone Codex or OpenCode event still reads as one for its driver
	case rd.invalid > rd.docs:
		return nil // mostly not JSON: a text that happens to contain some
	}
	for _, f := range rd.formats {
		if p := f.Events(); p != nil {
			return p
		}
	}
	if rd.docs == 1 {
		// One good document among a few broken lines: use it when it looks
		// like agent output.
		return rd.single(false)
	}
	return nil
}

// single reads the output as one document, the driver's format first.
func (rd *reading) single(lone bool) *Reply {
	for _, f := range rd.formats {
		if p := f.Document(lone); p != nil {
			return p
		}
	}
	return nil
}

func isoTimestamp(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05+00:00")
}

// build turns what was read into the Result.
func (rd *reading) build(opts Options) Result {
	stats := &rd.stats
	p := rd.pick()
	var raw *Facts
	if p == nil {
		raw = rd.raw.Finish()
	}
	res := Result{
		Loop:         opts.Loop,
		OutputFile:   opts.OutputFile,
		OutputLength: stats.length(),
		OutputBytes:  stats.bytes,
		Status:       "UNKNOWN",
		TestsStatus:  "UNKNOWN",
		WorkType:     "UNKNOWN",
	}
	if !opts.Now.IsZero() {
		res.Timestamp = isoTimestamp(opts.Now)
	}
	res.Documents, res.InvalidLines, res.SkippedLines = rd.docs, rd.invalid, rd.skipped
	if rd.skipped > 0 {
		res.note("%d line%s longer than %d MiB skipped", rd.skipped, plural(rd.skipped), MaxLine>>20)
	}
	if p != nil && p.Cut > 0 {
		res.note("a message text longer than %d bytes was cut", p.Cut)
	}
	var agent *Facts
	if p == nil {
		res.Format = FormatText
		agent = raw
		textPath(&res, raw, opts)
	} else {
		res.Format = p.Format
		agent = p.Text
		jsonPath(&res, p, opts)
	}
	res.OutputFormat = res.Format.outputFormat()
	if agent == nil {
		agent = &Facts{}
	}
	res.ResultText, res.ResultTruncated = agent.Text, agent.Truncated
	res.States = agent.States
	res.Question = agent.Question
	if b := res.Block; b != nil && boundQuestion(b.Question) != "" {
		res.Question = boundQuestion(b.Question)
	}
	res.QuestionCount = agent.Questions
	res.AskingQuestions = agent.Questions > 0
	res.ErrorCount = agent.ErrorCount
	for _, l := range agent.ErrorLines {
		res.ErrorLines = append(res.ErrorLines, l.Text)
	}
	res.HasErrors = res.ErrorCount > 0 || res.IsError
	if res.ErrorCount > 0 {
		res.RepeatsErrors = repeats(res.ErrorLines, opts.PreviousErrors)
		if res.RepeatsErrors {
			res.IsStuck = true
		}
	}
	if p != nil {
		res.UsageWindows = rd.limits.resolved(opts.Now)
	}
	detectLimit(&res, p, raw, opts)
	if !res.UsageLimited && opts.ExitCode == 0 && !opts.TimedOut {
		// A saved output does not say how its call ended: keep what a
		// failed call would have read as a limit (IfFailed).
		failed, o := res, opts
		o.ExitCode = 1
		if detectLimit(&failed, p, raw, o); failed.UsageLimited {
			res.ifFailed = &limitView{failed.UsageLimitReason, failed.UsageLimitWindow, failed.UsageLimitResetsAt}
		}
	}
	if res.DeniedCommands == nil {
		res.DeniedCommands = []string{}
	}
	res.SetFilesModified(opts.FilesModified)
	if opts.FixPlanDelta != nil {
		res.ApplyFixPlanDelta(*opts.FixPlanDelta)
	}
	return res
}

// jsonVerdict is what the JSON branch decides, step by step.
type jsonVerdict struct {
	summary    *Facts // the text the summary, denial and keyword rules read
	hasResult  bool
	status     string
	exit       bool
	explicit   bool // an exit signal was given (JSON key or status block)
	tasks      int
	workType   string
	files      int
	errorCount int
	confidence int
	block      *StatusBlock
}

// jsonPath is parse_json_response plus analyze_response's JSON branch.
func jsonPath(res *Result, p *Reply, opts Options) {
	v := objectVerdict(res, p)
	res.Status = v.status
	res.WorkType = v.workType
	res.ReportedFilesModified = v.files
	res.jsonFiles = v.files
	blockVerdict(res, p.Text, &v)
	res.TasksCompletedThisLoop = v.tasks
	jsonDenials(res, p, v.summary)
	kw := keywordVerdict(res, p, &v)

	if v.explicit {
		res.ExplicitExitSignal = true
	} else {
		switch {
		case v.exit:
			res.Reasons = append(res.Reasons, "the JSON exit_signal is true")
		case v.status == "COMPLETE":
			v.exit = true
			res.Reasons = append(res.Reasons, "the JSON status is COMPLETE")
		case kw:
			v.exit = true
		}
	}
	res.ExitSignal = v.exit
	res.HasCompletionSignal = v.exit
	res.IsTestOnly = v.workType == "TEST_ONLY"
	res.IsStuck = v.errorCount > 5

	res.FormatConfidence = 80
	if v.hasResult {
		res.FormatConfidence = 100
	}
	res.baseScore = v.confidence
	if v.exit {
		res.baseScore = 100
	}
	res.ConfidenceScore = res.baseScore
	if v.summary != nil {
		res.WorkSummary = v.summary.Text
	}
	jsonFacts(res, p)
}

// objectVerdict reads the result object's own fields (absent in the JSONL
// shapes).
func objectVerdict(res *Result, p *Reply) jsonVerdict {
	v := jsonVerdict{summary: p.Text, hasResult: true, status: "UNKNOWN", workType: "UNKNOWN"}
	if !p.Object {
		return v
	}
	v.hasResult = p.HasResult
	if p.Summary != nil {
		v.summary = p.Summary
	}
	v.status = p.Status
	v.exit = p.ExitSignal == "true"
	v.explicit = p.ExitKey
	if v.explicit {
		res.Reasons = append(res.Reasons, fmt.Sprintf("the JSON exit_signal key says %t", v.exit))
	}
	if n, ok := atoiSigned(p.Tasks); ok {
		v.tasks = n
	}
	v.workType = p.WorkType
	v.files = jqInt(p.Files)
	v.errorCount = jqInt(p.ErrorCount)
	if p.HasErrors == "true" && p.ErrorCount == "0" {
		v.errorCount = 1
	}
	v.confidence = jqInt(p.Confidence)
	return v
}

// blockVerdict applies the status block inside the agent's text.
func blockVerdict(res *Result, text *Facts, v *jsonVerdict) {
	if text == nil {
		return
	}
	if text.Bytes == 0 || text.Block == nil {
		res.BlockCount = text.Blocks
		return
	}
	block := text.Block
	v.block = block
	res.Block, res.BlockCount = block, text.Blocks
	v.tasks = block.TasksCompleted
	res.TestsStatus = block.TestsStatus
	if block.FilesModified != nil {
		// The agent's own count, for reporting; the exit and progress
		// decisions keep the JSON figure, as the bash loop does.
		res.ReportedFilesModified = *block.FilesModified
	}
	switch {
	case block.ExitSignalFound:
		v.explicit, v.exit = true, block.ExitSignal
		res.Reasons = append(res.Reasons, fmt.Sprintf("EXIT_SIGNAL: %t in the status block", v.exit))
	case block.Status == "COMPLETE" && !v.explicit:
		v.exit = true
		res.Reasons = append(res.Reasons, "STATUS: COMPLETE in the status block (no EXIT_SIGNAL)")
	}
}

// jsonDenials: the structured permission denials first, else the refusal
// heuristic on the summary text.
func jsonDenials(res *Result, p *Reply, summary *Facts) {
	if p.DenialCount > 0 {
		res.HasPermissionDenials = true
		res.PermissionDenialCount = p.DenialCount
		res.DeniedCommands = p.Denied
		res.DenialReason = "the output's permission_denials"
	} else if summary != nil && summary.Denial {
		res.HasPermissionDenials = true
		res.PermissionDenialCount = 1
		res.DeniedCommands = []string{"permission_denied"}
		res.DenialReason = "refusal in the first paragraph: " + summary.DenialLine
	}
}

// keywordVerdict applies the keyword heuristics: JSONL shapes only, and
// only without an exit signal or a status block. It reports whether one
// matched.
func keywordVerdict(res *Result, p *Reply, v *jsonVerdict) bool {
	summary := v.summary
	if p.Object || v.explicit || v.block != nil || summary == nil || summary.Bytes == 0 {
		return false
	}
	if k := summary.firstKeyword(); k != "" {
		res.CompletionKeyword = k
		res.Reasons = append(res.Reasons, fmt.Sprintf("completion keyword %q (no status block)", k))
		return true
	}
	if w := summary.firstNoWork(); w != "" {
		res.NoWorkPattern = w
		res.Reasons = append(res.Reasons, fmt.Sprintf("no-work phrase %q (no status block)", w))
		return true
	}
	return false
}

// jsonFacts copies what the output reported about the call itself.
func jsonFacts(res *Result, p *Reply) {
	res.SessionID = p.Session
	var u Usage
	take := func(v, dst *int64, bit usageFields) {
		if v != nil {
			*dst, res.usageKnown = *v, res.usageKnown|bit
		}
	}
	take(p.InputTokens, &u.InputTokens, usageIn)
	take(p.OutputTokens, &u.OutputTokens, usageOut)
	take(p.CacheReadTokens, &u.CacheReadTokens, usageCacheRead)
	take(p.CacheCreationTokens, &u.CacheCreationTokens, usageCacheCreate)
	if p.CostUSD != nil {
		u.CostUSD, res.usageKnown = *p.CostUSD, res.usageKnown|usageCost
	}
	if res.usageKnown != 0 {
		res.Usage = &u
	}
	res.DurationMS, res.DurationAPIMS, res.NumTurns = p.DurationMS, p.DurationAPIMS, p.NumTurns
	res.IsError = p.IsError
	res.ErrorMessages = p.ErrorMessages
	if p.Where != "" {
		res.note("agent text: %s", p.Where)
	}
}

// textPath is analyze_response's plain-text branch.
func textPath(res *Result, f *Facts, opts Options) {
	res.textPath = true
	var completion, exit bool
	var score int
	if b := f.Block; b != nil {
		completion, exit, score = textBlock(res, f, b)
	} else {
		completion, exit, score = textHeuristics(res, f, opts)
	}
	res.HasCompletionSignal = completion
	res.ExitSignal = exit
	res.baseScore = score
	res.ConfidenceScore = score
	if res.WorkSummary == "" {
		// The bash loop's summary line, but never a line of the status
		// block (its TASKS_COMPLETED_THIS_LOOP matches "completed"); with
		// none, the agent's prose before its status block.
		switch {
		case f.HasSummary:
			res.WorkSummary = f.Summary
		case f.Prose != "":
			res.WorkSummary = f.Prose
		default:
			res.WorkSummary = "Output analyzed, no explicit summary found"
		}
	}
	switch {
	case f.HasSummary && res.WorkSummary == f.Summary && textHasDenial(f.Summary):
		res.DenialReason = "refusal in the summary line: " + res.WorkSummary
	case f.Denial:
		res.DenialReason = "refusal in the first paragraph: " + f.DenialLine
	}
	if res.DenialReason != "" {
		res.HasPermissionDenials = true
		res.PermissionDenialCount = 1
		res.DeniedCommands = []string{"permission_denied"}
	}
}

// textBlock decides a plain-text output by its status block.
func textBlock(res *Result, f *Facts, b *StatusBlock) (completion, exit bool, score int) {
	res.Block, res.BlockCount = b, f.Blocks
	res.FormatConfidence = 70
	res.TasksCompletedThisLoop = b.TasksCompleted
	res.TestsStatus = b.TestsStatus
	if b.FilesModified != nil {
		res.ReportedFilesModified = *b.FilesModified // for reporting only
	}
	switch {
	case b.ExitSignalFound && b.ExitSignal:
		res.ExplicitExitSignal = true
		res.Reasons = append(res.Reasons, "EXIT_SIGNAL: true in the status block")
		return true, true, 100
	case b.ExitSignalFound:
		res.ExplicitExitSignal = true
		res.Reasons = append(res.Reasons, "EXIT_SIGNAL: false in the status block")
		return false, false, 80
	case b.Status == "COMPLETE":
		res.Reasons = append(res.Reasons, "STATUS: COMPLETE in the status block (no EXIT_SIGNAL)")
		return true, true, 100
	}
	res.Reasons = append(res.Reasons, "the status block has no EXIT_SIGNAL and no STATUS: COMPLETE")
	return false, false, 0
}

// textHeuristics decides a plain-text output without a status block:
// keywords, test-only lines, error lines, no-work phrases and a shorter
// output than the previous loop's.
func textHeuristics(res *Result, f *Facts, opts Options) (completion, exit bool, score int) {
	res.FormatConfidence = 30
	res.gitBonus = true
	if k := f.firstKeyword(); k != "" {
		completion = true
		score += 10
		res.CompletionKeyword = k
		res.Reasons = append(res.Reasons, fmt.Sprintf("completion keyword %q (no status block)", k))
	}
	if f.TestLines > 0 && f.ImplLines == 0 {
		res.IsTestOnly = true
		res.WorkSummary = "Test execution only, no implementation"
	}
	if f.ErrorCount > 5 {
		res.IsStuck = true
	}
	if w := f.firstNoWork(); w != "" {
		completion = true
		score += 15
		res.NoWorkPattern = w
		res.WorkSummary = "No work remaining"
		res.Reasons = append(res.Reasons, fmt.Sprintf("no-work phrase %q (no status block)", w))
	}
	if prev := opts.PreviousOutputLength; prev > 0 && res.OutputLength*100/prev < 50 {
		score += 10
		res.Reasons = append(res.Reasons, fmt.Sprintf("output shorter than half the previous one (%d < %d/2): +10 confidence", res.OutputLength, prev))
	}
	exit = score >= 40 || completion
	if !exit {
		res.Reasons = append(res.Reasons, "no status block and no completion keyword")
	}
	return completion, exit, score
}

// jqInt is bash's $((value + 0)) on what jq printed: integers (or the
// integer part of a number), 0 otherwise.
func jqInt(s string) int {
	s = strings.TrimSpace(s)
	if n, err := strconv.Atoi(s); err == nil {
		return n
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil && f > -1e15 && f < 1e15 {
		return int(f)
	}
	return 0
}

// repeats is detect_stuck_loop's rule on error lines kept from earlier
// loops: every current error line appears in every one of (up to) the
// three most recent previous loops.
func repeats(current []string, previous [][]string) bool {
	if len(previous) == 0 || len(current) == 0 {
		return false
	}
	if len(previous) > 3 {
		previous = previous[:3]
	}
	for _, prev := range previous {
		for _, line := range current {
			found := false
			for _, p := range prev {
				if strings.Contains(p, line) {
					found = true
					break
				}
			}
			if !found {
				return false
			}
		}
	}
	return true
}

func (r *Result) note(format string, args ...any) {
	r.Reasons = append(r.Reasons, "note: "+fmt.Sprintf(format, args...))
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
