package review

import (
	"fmt"
	"strconv"
	"strings"
)

// REVIEW_MODE values.
const (
	modeOff      = "off"
	modeEnhanced = "enhanced" // every Interval loops
	modeUltimate = "ultimate" // after every loop that completed a task
)

// defaultInterval is REVIEW_INTERVAL's default, also used for values < 1.
const defaultInterval = 5

// ReadOnlyTools is the tool allowlist of a review call.
var ReadOnlyTools = []string{"Read", "Glob", "Grep"}

// LogName is the review call's output log under .ralph/.
func LogName(loop int) string { return "logs/review_loop_" + strconv.Itoa(loop) + ".log" }

// DueInput is what decides whether a review runs after a successful loop.
type DueInput struct {
	Loop         int
	Mode         string
	Interval     int    // REVIEW_INTERVAL; < 1 means defaultInterval
	FixPlanDelta int    // done boxes gained this loop (ultimate mode)
	BreakerState string // the stagnation breaker's state; "" when there is none
	GitOK        bool   // git works here; without it the change check is skipped
	HeadSHA      string // current HEAD
	LastSHA      string // .review_last_sha ("" when none)
	Dirty        bool   // the working tree has uncommitted changes
}

// Due reports whether a review runs after this loop (the first one
// included, as the bash loop does: a two-story plan has only one loop
// before its last): never while the breaker is not CLOSED; in enhanced
// mode every Interval loops; in ultimate mode after each loop that ticked
// a task; and only when something changed since the last review (HEAD
// moved or the tree is dirty). Unknown modes never review.
func Due(in DueInput) bool {
	if in.Loop < 1 {
		return false
	}
	if in.BreakerState != "" && in.BreakerState != "CLOSED" {
		return false
	}
	switch in.Mode {
	case modeEnhanced:
		iv := in.Interval
		if iv < 1 {
			iv = defaultInterval
		}
		if in.Loop%iv != 0 {
			return false
		}
	case modeUltimate:
		if in.FixPlanDelta < 1 {
			return false
		}
	default:
		return false
	}
	if in.GitOK && in.HeadSHA == in.LastSHA && !in.Dirty {
		return false
	}
	return true
}

// diffRange is the commit range whose `git diff --stat` the review sees:
// everything since the last review, or the last five commits.
func diffRange(lastSHA string) string {
	if lastSHA == "" {
		return "HEAD~5..HEAD"
	}
	return lastSHA + "..HEAD"
}

// diffContext combines `git diff <diffRange> --stat` (first 20 lines) and
// `git diff --stat` of the working tree (first 10 lines) into the review's
// "Recent changes", or "No recent changes".
func diffContext(committedStat, uncommittedStat string) string {
	s := headLines(committedStat, 20)
	if u := headLines(uncommittedStat, 10); u != "" {
		s += "\nUncommitted:\n" + u
	}
	if s == "" {
		return "No recent changes"
	}
	return s
}

func headLines(s string, n int) string {
	s = strings.TrimRight(s, "\n")
	if s == "" {
		return ""
	}
	ls := strings.SplitN(s, "\n", n+1)
	if len(ls) > n {
		ls = ls[:n]
	}
	return strings.Join(ls, "\n")
}

// BuildPrompt is the review call's input: REVIEW_PROMPT.md's content as
// the prompt, and for the system prompt (the driver's loop-context slot)
// the review's instructions with the recent changes since lastSHA (the
// last review's commit; "" for none): diffStat is `git diff <range>
// --stat`, asked for the commits since then (diffRange), then with ""
// for the working tree.
func BuildPrompt(reviewPrompt []byte, lastSHA string, diffStat func(rangeSpec string) string) (prompt, systemContext string) {
	committed := diffStat(diffRange(lastSHA))
	uncommitted := diffStat("")
	return strings.TrimRight(string(reviewPrompt), "\n"),
		"CODE REVIEW LOOP (read-only). Analyze changes since last review. Recent changes: " + diffContext(committed, uncommitted)
}

// MissingPromptWarning is the WARN line when REVIEW_PROMPT.md is missing;
// the review is then skipped.
func MissingPromptWarning(path string) string {
	return "Review prompt file not found: " + path + " — skipping review"
}

// StartMessage is the INFO line when a review starts.
func StartMessage(loop int) string {
	return fmt.Sprintf("Starting periodic code review (loop #%d)", loop)
}
