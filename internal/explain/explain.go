// Package explain words, for people, how one agent output was read and
// what decided exit or continue (the stderr of ralph_loop --analyze).
package explain

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/ralphloop/ralph_loop/analysis"
	"github.com/ralphloop/ralph_loop/internal/clip"
)

// Of describes the result: a short account, for people, of how one output
// was read and what decided exit or continue. One line per entry, without
// newlines.
func Of(r *analysis.Result) []string {
	var out []string
	add := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }

	add("format: %s, %d characters", shape(r), r.OutputLength)
	for _, w := range r.Reasons {
		if strings.HasPrefix(w, "note: ") {
			add("%s", w)
		}
	}
	if r.SessionID != "" {
		add("session: %s", r.SessionID)
	}
	add("status block: %s", blockLine(r))
	explainDecision(r, add)
	explainErrors(r, add)
	if r.HasPermissionDenials {
		add("permission denials: %d: %s (%s)", r.PermissionDenialCount, strings.Join(r.DeniedCommands, ", "), r.DenialReason)
	} else {
		add("permission denials: none")
	}
	if r.UsageLimited {
		add("usage limit: %s", r.UsageLimitReason)
		if r.UsageLimitWindow != "" || r.UsageLimitResetsAt > 0 {
			add("usage limit in: %s", windowWords(r.Limit()))
		}
	}
	for _, w := range r.UsageWindows {
		add("usage window: %s", windowWords(w))
	}
	if len(r.States) > 0 {
		add("states: %s", strings.Join(r.States, ", "))
	}
	return out
}

// windowWords describes one usage window: its name, status, used percent
// and reset time (UTC), the parts that are known.
func windowWords(w analysis.LimitWindow) string {
	name := w.Window
	if name == "" {
		name = "(window not named)"
	}
	parts := []string{name}
	if w.Status != "" {
		parts = append(parts, w.Status)
	}
	if w.UsedPercent != nil {
		parts = append(parts, strconv.FormatFloat(*w.UsedPercent, 'f', -1, 64)+"% used")
	}
	if w.WindowMinutes > 0 {
		parts = append(parts, fmt.Sprintf("%d-minute window", w.WindowMinutes))
	}
	if w.ResetsAt > 0 {
		parts = append(parts, "resets "+time.Unix(w.ResetsAt, 0).UTC().Format(time.RFC3339))
	} else {
		parts = append(parts, "reset time not given")
	}
	return strings.Join(parts, ", ")
}

// shape is the format the output was read as, with its document counts.
func shape(r *analysis.Result) string {
	shape := string(r.Format)
	if r.Format != analysis.FormatText {
		shape += fmt.Sprintf(" (%d JSON document%s", r.Documents, plural(r.Documents))
		if r.InvalidLines > 0 {
			shape += fmt.Sprintf(", %d invalid line%s skipped", r.InvalidLines, plural(r.InvalidLines))
		}
		shape += ")"
	} else if r.InvalidLines > 0 || r.Documents > 0 {
		shape += fmt.Sprintf(" (looked like JSON but was not: %d document%s, %d invalid line%s)",
			r.Documents, plural(r.Documents), r.InvalidLines, plural(r.InvalidLines))
	}
	return shape
}

// blockLine describes the status block that counted.
func blockLine(r *analysis.Result) string {
	b := r.Block
	switch {
	case b == nil && r.BlockCount == 0:
		return "none found"
	case b == nil:
		return fmt.Sprintf("%d start marker%s but no block", r.BlockCount, plural(r.BlockCount))
	}
	state := "closed"
	if !b.Complete {
		state = "not closed, read to the end of the text"
	}
	which := "found"
	if r.BlockCount > 1 {
		which = fmt.Sprintf("%d found; the last closed one counts", r.BlockCount)
		if !b.Complete {
			which = fmt.Sprintf("%d found; none closed, the last one counts", r.BlockCount)
		}
	}
	exit := "(no EXIT_SIGNAL)"
	if b.ExitSignalFound {
		exit = fmt.Sprintf("EXIT_SIGNAL=%t", b.ExitSignal)
	}
	status := b.Status
	if status == "" {
		status = "(none)"
	}
	return fmt.Sprintf("%s, line %d of the agent's text (%s): STATUS=%s %s TASKS_COMPLETED_THIS_LOOP=%d TESTS_STATUS=%s",
		which, b.Line, state, status, exit, b.TasksCompleted, b.TestsStatus)
}

// explainDecision adds the exit decision and its reasons.
func explainDecision(r *analysis.Result, add func(string, ...any)) {
	verdict := "continue"
	if r.ExitSignal {
		verdict = "exit signal"
	}
	var reasons []string
	for _, w := range r.Reasons {
		if !strings.HasPrefix(w, "note: ") {
			reasons = append(reasons, w)
		}
	}
	if len(reasons) == 0 {
		reasons = []string{"nothing signalled completion"}
	}
	add("decision: %s (exit_signal=%t, completion=%t, confidence %d): %s",
		verdict, r.ExitSignal, r.HasCompletionSignal, r.ConfidenceScore, strings.Join(reasons, "; "))
	if r.HasProgressTrackingMismatch {
		add("decision: completion suppressed: claimed %d task(s), checkbox delta %d", r.TasksCompletedThisLoop, r.FixPlanCompletedDelta)
	}
	if r.IsTestOnly {
		add("test-only loop: test commands and no implementation")
	}
	if r.AskingQuestions {
		add("questions: the agent asked the user %d time%s", r.QuestionCount, plural(r.QuestionCount))
	}
}

// explainErrors adds the reported failure and the error lines.
func explainErrors(r *analysis.Result, add func(string, ...any)) {
	if r.IsError {
		msg := ""
		if len(r.ErrorMessages) > 0 {
			msg = ": " + r.ErrorMessages[0]
		}
		add("errors: the agent reported a failed call%s", msg)
	}
	if r.ErrorCount > 0 {
		add("errors: %d error line%s in the agent's text%s", r.ErrorCount, plural(r.ErrorCount), stuckNote(r))
		for i, l := range r.ErrorLines {
			if i == 5 {
				add("  ... %d more", len(r.ErrorLines)-5)
				break
			}
			add("  %s", clip.Bytes(l, 160))
		}
	} else if !r.IsError {
		add("errors: none")
	}
}

func stuckNote(r *analysis.Result) string {
	switch {
	case r.RepeatsErrors:
		return " (the same errors as the previous loops: stuck)"
	case r.IsStuck:
		return " (more than five: stuck)"
	}
	return ""
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
