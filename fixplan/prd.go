package fixplan

import (
	"regexp"
	"strings"
)

// ImportLimit is the most tasks ImportPRD returns.
const ImportLimit = 30

var (
	prdCheckbox = regexp.MustCompile(`^` + ws + `*[-*]` + ws + `*\[` + ws + `*[xX ]?` + ws + `*\]`)
	prdTicked   = regexp.MustCompile(`\[[xX]\]`)
	prdNumbered = regexp.MustCompile(`^` + ws + `*[0-9]+\.` + ws + `+`)
	prdNumStrip = regexp.MustCompile(`^` + ws + `*[0-9]*\.` + ws + `*`)
	prdHeading  = regexp.MustCompile(`^#{1,3}` + ws + `+(TODO|Tasks|Requirements|Features|Backlog|Sprint)`)
	prdBullet   = regexp.MustCompile(`^` + ws + `*[-*]` + ws + `+(.+)$`)
	prdNumItem  = regexp.MustCompile(`^` + ws + `*[0-9]+\.` + ws + `+(.+)$`)
)

// ImportPRD turns a requirements document into open checkbox tasks, without
// any AI help, the way Ralph's task import does:
//   - existing checkbox lines (with "-" or "*") are kept and reset to "[ ]";
//   - the first 20 numbered items ("1. Do X") become "- [ ] Do X";
//   - bullets and numbered items under a heading of level 1-3 that starts
//     with TODO, Tasks, Requirements, Features, Backlog or Sprint become
//     tasks (bullets holding a "[...]" are left to the first rule).
//
// Empty lines and repeats are dropped and at most ImportLimit tasks are
// returned, in that order.
func ImportPRD(prd []byte) []string {
	ls := lines(prd)
	var tasks []string
	for _, l := range ls {
		if prdCheckbox.MatchString(l) {
			tasks = append(tasks, prdTicked.ReplaceAllString(l, "[ ]"))
		}
	}
	numbered := 0
	for _, l := range ls {
		if numbered == 20 {
			break
		}
		if prdNumbered.MatchString(l) {
			numbered++
			if t := prdNumStrip.ReplaceAllString(l, ""); t != "" {
				tasks = append(tasks, "- [ ] "+t)
			}
		}
	}
	for i, l := range ls {
		if !prdHeading.MatchString(l) {
			continue
		}
		for _, s := range ls[i+1:] {
			if strings.HasPrefix(s, "#") {
				break
			}
			text := ""
			if m := prdBullet.FindStringSubmatch(s); m != nil {
				if !bracketed(s) {
					text = m[1]
				}
			} else if m := prdNumItem.FindStringSubmatch(s); m != nil {
				text = m[1]
			}
			if text != "" {
				tasks = append(tasks, "- [ ] "+text)
			}
		}
	}
	seen := make(map[string]bool, len(tasks))
	var out []string
	for _, t := range tasks {
		if t == "" || seen[t] {
			continue
		}
		seen[t] = true
		out = append(out, t)
		if len(out) == ImportLimit {
			break
		}
	}
	return out
}

// bracketed reports whether s holds a "[" with a "]" somewhere after it.
func bracketed(s string) bool {
	i := strings.IndexByte(s, '[')
	return i >= 0 && strings.IndexByte(s[i:], ']') >= 0
}
