package fixplan

import (
	"regexp"
	"strings"
)

// DefaultOptionalSections are the section titles whose open tasks do not
// hold back plan completion, as in upstream Ralph (frankbria/ralph-claude-code,
// OPTIONAL_SECTIONS, issue #239). Matching is case-insensitive on the whole,
// trimmed heading title.
var DefaultOptionalSections = []string{"Optional", "Future", "Future Enhancements", "Nice to Have"}

var headingRe = regexp.MustCompile(`^` + ws + `*(#+)` + ws + `+(.*)$`)

// BlockingUnchecked counts the open tasks outside optional sections. A
// heading whose title is one of optional opens an optional section; it
// covers deeper subsections and ends at the next heading of the same or a
// higher level. With no optional titles it equals Count(plan).Unchecked.
func BlockingUnchecked(plan []byte, optional []string) int {
	opt := make(map[string]bool, len(optional))
	for _, o := range optional {
		if o = strings.ToLower(strings.TrimSpace(o)); o != "" {
			opt[o] = true
		}
	}
	n := 0
	active, level := false, 0
	for _, l := range lines(plan) {
		if m := headingRe.FindStringSubmatch(l); m != nil {
			lv := len(m[1])
			if active && lv <= level {
				active = false
			}
			if opt[strings.ToLower(strings.Trim(m[2], " \t\n\v\f\r"))] {
				active, level = true, lv
			}
			continue
		}
		if !active && openRe.MatchString(l) {
			n++
		}
	}
	return n
}

// Complete reports whether the plan is finished: it has at least one task
// and every task outside the optional sections is done. It is the
// "plan_complete" exit condition. Pass nil for optional to count every
// task, as bmalph's loop does.
func Complete(plan []byte, optional []string) bool {
	done := Count(plan).Checked
	total := done + BlockingUnchecked(plan, optional)
	return total > 0 && done == total
}
