package events

import (
	"regexp"
	"strings"
	"sync"

	"github.com/ralphloop/ralph_loop/internal/clip"
)

var (
	// statusBlock is the RALPH_STATUS block (to its end marker, or to the
	// end of the reply when the marker is missing).
	statusBlock = lazy(`(?s)-{3}\s*RALPH_STATUS\s*-{3}.*?(-{3}\s*END_RALPH_STATUS\s*-{3}|$)`)
	// summaryLabel is a leading "Summary:" (also "**Summary:**", "## Summary").
	summaryLabel = lazy(`(?i)^[\s#*_>-]*summary\s*:?[\s*_]*`)
	summaryLine  = lazy(`(?im)^[\s#*_>-]*summary\b[\s*_]*:?[\s*_]*(\S.*)$`)
)

// lazy compiles the regular expression p at its first use rather than when
// the program starts: every start pays for what init does, the sentinel's
// and a --version's included.
func lazy(p string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(p) })
}

// boxSummary is the agent's own summary as the Response Analysis box
// shows it: without the RALPH_STATUS block, and without a "Summary:" label
// of its own (the box has one), on one line. A reply with a "Summary:"
// line is summarised by that line.
func boxSummary(s string) string {
	s = statusBlock().ReplaceAllString(s, " ")
	if m := summaryLine().FindStringSubmatch(s); m != nil {
		s = m[1]
	}
	for {
		t := summaryLabel().ReplaceAllString(s, "")
		if t == s {
			break
		}
		s = t
	}
	return strings.Join(strings.Fields(s), " ")
}

// SummaryLine is the agent's summary as the Response Analysis box shows
// it: one line, no RALPH_STATUS block, at most 200 bytes.
func SummaryLine(s string) string { return clip.Bytes(boxSummary(s), 200) }
