package templates

import (
	"strings"

	"github.com/ralphloop/ralph_loop/internal/clip"
)

// diffSummaryLimit is the longest DiffSummary result; longer summaries are
// cut to diffSummaryLimit-3 characters plus "...".
const diffSummaryLimit = 147

// DiffSummary formats `git diff --numstat` output into the one-line summary
// of a loop's changes that the next loop's context quotes:
//
//	Changed: src/app.txt (+1/-0), README.md (+12/-3)
//
// numstat may be the concatenated output of several diffs (commits since the
// loop started, the working tree, the index); a path is listed once, with
// the numbers of its first row. Binary files ("-" counts) and malformed rows
// are skipped. It returns "" when nothing is left.
func DiffSummary(numstat string) string {
	seen := map[string]bool{}
	var items []string
	for _, line := range strings.Split(numstat, "\n") {
		f := strings.SplitN(strings.TrimSuffix(line, "\r"), "\t", 3)
		if len(f) < 3 || f[2] == "" || seen[f[2]] {
			continue
		}
		seen[f[2]] = true
		if f[0] == "-" || !digits(f[0]) || !digits(f[1]) {
			continue
		}
		items = append(items, f[2]+" (+"+f[0]+"/-"+f[1]+")")
	}
	if len(items) == 0 {
		return ""
	}
	s := "Changed: " + strings.Join(items, ", ")
	if len([]rune(s)) > diffSummaryLimit {
		s = clip.Runes(s, diffSummaryLimit-3) + "..."
	}
	return s
}

func digits(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
