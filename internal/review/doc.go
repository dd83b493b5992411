// Package review holds the pure parts of periodic code review: when a review
// is due (REVIEW_MODE, REVIEW_INTERVAL), the review call's prompt and
// read-only context, turning the review agent's output into
// .ralph/.review_findings.json, and the findings text for the next
// implementation loop's system prompt. The engine runs the agent (with the
// ReadOnlyTools allowlist, no session resume, output to LogName(loop)) and
// git; this package never starts a process.
//
//	if review.Due(review.DueInput{Loop: n, Mode: m, Interval: i, FixPlanDelta: d,
//		BreakerState: s, GitOK: ok, HeadSHA: head, LastSHA: last, Dirty: dirty}) {
//		prompt, system := review.BuildPrompt(promptFile, last, gitDiffStat) // the engine runs git
//		// run the agent with prompt and system, then:
//		f, err := review.ParseFindings(output)   // no block, or not a JSON object
//		level, msg := review.Outcome(f, err)
//		if err == nil { keep(f) }             // the state store writes f.JSON()
//		keep(head)                            // and .ralph/.review_last_sha
//	}
//	f, err := review.Decode(data)            // .review_findings.json, as the store reads it
//	text := review.ContextFor(f)                 // templates.ContextInput.ReviewContext
package review
