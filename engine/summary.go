package engine

import (
	"fmt"
	"regexp"

	"github.com/ralphloop/ralph_loop/analysis"
	"github.com/ralphloop/ralph_loop/internal/clip"
)

// printAnalysisSummary is log_analysis_summary: a short box on stdout.
func (l *loop) printAnalysisSummary(res analysis.Result) {
	w := l.deps.Stdout
	fmt.Fprintf(w, "%s╔════════════════════════════════════════════════════════════╗\n", l.colour(blue))
	fmt.Fprintf(w, "║           Response Analysis - Loop #%-23d║\n", l.n)
	fmt.Fprintf(w, "╚════════════════════════════════════════════════════════════╝%s\n", l.colour(reset))
	fmt.Fprintf(w, "Exit Signal:      %v\n", res.ExitSignal)
	fmt.Fprintf(w, "Confidence:       %d%%\n", res.ConfidenceScore)
	fmt.Fprintf(w, "Test Only:        %v\n", res.IsTestOnly)
	fmt.Fprintf(w, "Files Changed:    %d\n", res.FilesModified)
	if sum := boxSummary(res.WorkSummary); sum != "" {
		fmt.Fprintf(w, "Summary:          %s\n", clip.Bytes(sum, 200))
	}
	fmt.Fprintln(w)
}

var (
	// statusBlock is the RALPH_STATUS block (to its end marker, or to the
	// end of the reply when the marker is missing).
	statusBlock = regexp.MustCompile(`(?s)-{3}\s*RALPH_STATUS\s*-{3}.*?(-{3}\s*END_RALPH_STATUS\s*-{3}|$)`)
	// summaryLabel is a leading "Summary:" (also "**Summary:**", "## Summary").
	summaryLabel = regexp.MustCompile(`(?i)^[\s#*_>-]*summary\s*:?[\s*_]*`)
	summaryLine  = regexp.MustCompile(`(?im)^[\s#*_>-]*summary\b[\s*_]*:?[\s*_]*(\S.*)$`)
)

// boxSummary is the agent's own summary as the Response Analysis box
// shows it: without the RALPH_STATUS block, and without a "Summary:" label
// of its own (the box has one), on one line. A reply with a "Summary:"
// line is summarised by that line.
func boxSummary(s string) string {
	s = statusBlock.ReplaceAllString(s, " ")
	if m := summaryLine.FindStringSubmatch(s); m != nil {
		s = m[1]
	}
	for {
		t := summaryLabel.ReplaceAllString(s, "")
		if t == s {
			break
		}
		s = t
	}
	return oneLine(s)
}
