package templates

import (
	"fmt"
	"strings"

	"github.com/ralphloop/ralph_loop/internal/clip"
)

// Caps of the loop context, in characters.
const (
	contextMax     = 500 // the loop part (everything but review and write-timeout text)
	previousMax    = 200 // the previous loop's summary
	diffSummaryMax = 150 // the diff summary as quoted in the context
)

// writeTimeoutNotice tells the agent the previous loop was stopped for
// changing no file.
const writeTimeoutNotice = "PREVIOUS LOOP TIMED OUT (read-only). START WRITING CODE IMMEDIATELY. Do not re-read files you already explored. "

// ContextInput is everything one loop's context is built from. The engine
// fills it: fix-plan numbers from package fixplan, QualityGateFeedback from
// gates.Feedback, ReviewContext from review.ContextFor.
type ContextInput struct {
	Loop           int
	SessionResumed bool // an agent session is being resumed

	HaveFixPlan bool   // @fix_plan.md exists
	Remaining   int    // fixplan.Count(plan).Unchecked
	NextTask    string // fixplan.NextTask(plan)

	BreakerState        string // the breaker's state; "", "CLOSED" and "null" say nothing
	PreviousSummary     string // the previous loop's work summary
	QualityGateFeedback string // gates.Feedback of the last results
	DiffSummary         string // DiffSummary of the previous loop's changes

	ReviewContext string // review.ContextFor of pending findings
	WriteTimedOut bool   // the previous call was stopped by the write heartbeat
	// Held: the run would have ended as complete, but a blocking quality
	// gate fails (heldNotice); sent with --no-continue too.
	Held *Held
	// TaskChecks: the tasks the previous call ticked whose VERIFY_COMMAND
	// failed (taskCheckNotice); sent with --no-continue too.
	TaskChecks []TaskCheck

	// LoopStateOff leaves out the loop part and keeps only the review and
	// write-timeout text: what the bash loop sends with --no-continue.
	LoopStateOff bool
}

// LoopContext is the text appended to the agent's system prompt for one
// loop. The loop part is a row of short sentences, each ending in ". ":
//
//	Loop #2. Session continued — do NOT re-read spec files. Resume implementation.
//	Remaining tasks: 1. Next: - [ ] Task B. Circuit breaker: HALF_OPEN.
//	Previous: <summary>. TESTS FAILING: <output>. QG fail: <gates>. Changed: <files>.
//
// (one line in reality), cut to contextMax characters so the most useful
// parts survive. A held completion, review findings and the write-timeout
// notice follow it with their own caps, so the agent gets a single
// addition per call.
func LoopContext(in ContextInput) string {
	var b strings.Builder
	if !in.LoopStateOff {
		b.WriteString(clip.Runes(loopPart(in), contextMax))
	}
	if in.Held != nil {
		if b.Len() > 0 && !strings.HasSuffix(b.String(), " ") {
			b.WriteByte(' ')
		}
		b.WriteString(heldNotice(*in.Held))
	}
	if t := taskCheckNotice(in.TaskChecks); t != "" {
		if b.Len() > 0 && !strings.HasSuffix(b.String(), " ") {
			b.WriteByte(' ')
		}
		b.WriteString(t)
	}
	if in.ReviewContext != "" {
		if b.Len() > 0 && !strings.HasSuffix(b.String(), " ") {
			b.WriteByte(' ')
		}
		b.WriteString(in.ReviewContext + " ")
	}
	if in.WriteTimedOut {
		if b.Len() > 0 && !strings.HasSuffix(b.String(), " ") {
			b.WriteByte(' ')
		}
		b.WriteString(writeTimeoutNotice)
	}
	return b.String()
}

func loopPart(in ContextInput) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Loop #%d. ", in.Loop)
	if in.SessionResumed {
		b.WriteString("Session continued — do NOT re-read spec files. Resume implementation. ")
	}
	if in.HaveFixPlan {
		fmt.Fprintf(&b, "Remaining tasks: %d. ", in.Remaining)
		if in.NextTask != "" {
			b.WriteString("Next: " + in.NextTask + ". ")
		}
	}
	if s := in.BreakerState; s != "" && s != "CLOSED" && s != "null" {
		b.WriteString("Circuit breaker: " + s + ". ")
	}
	if p := previous(in.PreviousSummary); p != "" {
		b.WriteString("Previous: " + p + ". ")
	}
	b.WriteString(in.QualityGateFeedback)
	if d := clip.Runes(strings.TrimSpace(in.DiffSummary), diffSummaryMax); d != "" {
		b.WriteString(d + ". ")
	}
	return b.String()
}

// previous prepares the last loop's summary: the agent's status block is
// dropped (the loop already acted on it), whitespace becomes single spaces,
// and the text is cut to previousMax characters without a final period (the
// context adds its own).
func previous(s string) string {
	if i := strings.Index(s, "---RALPH_STATUS---"); i >= 0 {
		rest := s[i:]
		s = s[:i]
		if j := strings.Index(rest, "---END_RALPH_STATUS---"); j >= 0 {
			s += " " + rest[j+len("---END_RALPH_STATUS---"):]
		}
	}
	s = strings.Join(strings.Fields(s), " ")
	if s == "null" {
		return ""
	}
	return strings.TrimRight(clip.Runes(s, previousMax), ". ")
}
