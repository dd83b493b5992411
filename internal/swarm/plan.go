package swarm

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/ralphloop/ralph_loop/internal/lazyre"
)

var (
	headingRe = lazyre.Compile(`^#{2,3}[ \t]+\S`)
	openRe    = lazyre.Compile(`^\s*- \[ \]`)
	doneRe    = lazyre.Compile(`^\s*- \[[xX]\]`)
	taskRe    = lazyre.Compile(`^\s*- \[[ xX]\]\s*(.*?)\s*$`)
)

// epic is one section of the plan: a "##" or "###" heading and the lines
// up to the next such heading. bmalph's plans group their stories under
// "### Epic N: ..." inside "## Stories to Implement"; a plain plan uses
// "##" sections. A section that holds no task of its own ("## Stories to
// Implement" above its epics, "## Completed") is not an epic.
type epic struct {
	Heading string   // the heading without its hashes ("Epic 1: Login")
	Lines   []string // the heading line and the section's lines
	Open    int      // unchecked tasks
	Done    int      // checked tasks
}

// epics reads the plan's sections. Tasks above the first heading form an
// epic named "Ungrouped tasks".
func epics(plan string) (preamble []string, epics []epic) {
	lines := strings.Split(strings.ReplaceAll(plan, "\r\n", "\n"), "\n")
	var cur *epic
	flush := func() {
		if cur != nil && cur.Open+cur.Done > 0 {
			for len(cur.Lines) > 0 && strings.TrimSpace(cur.Lines[len(cur.Lines)-1]) == "" {
				cur.Lines = cur.Lines[:len(cur.Lines)-1]
			}
			epics = append(epics, *cur)
		}
		cur = nil
	}
	var loose *epic // tasks before the first heading
	for _, l := range lines {
		if headingRe().MatchString(l) {
			flush()
			cur = &epic{Heading: strings.TrimSpace(strings.TrimLeft(l, "#")), Lines: []string{l}}
			continue
		}
		target := cur
		if target == nil {
			if !openRe().MatchString(l) && !doneRe().MatchString(l) && loose == nil {
				preamble = append(preamble, l)
				continue
			}
			if loose == nil {
				loose = &epic{Heading: "Ungrouped tasks", Lines: []string{"## Ungrouped tasks"}}
			}
			target = loose
		}
		target.Lines = append(target.Lines, l)
		switch {
		case openRe().MatchString(l):
			target.Open++
		case doneRe().MatchString(l):
			target.Done++
		}
	}
	flush()
	if loose != nil {
		epics = append([]epic{*loose}, epics...)
	}
	for len(preamble) > 0 && strings.TrimSpace(preamble[len(preamble)-1]) == "" {
		preamble = preamble[:len(preamble)-1]
	}
	return preamble, epics
}

// errTooFewEpics is a plan with fewer than two unfinished epics: there is
// nothing to do side by side.
var errTooFewEpics = errors.New("too few unfinished epics")

// split gives the plan's unfinished epics to at most n workers, as bmalph
// does: the epic with the most open tasks first, each to the worker with
// the fewest open tasks so far. Fewer epics than n give fewer workers.
func split(plan string, n int) (preamble []string, parts [][]epic, err error) {
	preamble, all := epics(plan)
	var open []epic
	for _, e := range all {
		if e.Open > 0 {
			open = append(open, e)
		}
	}
	if len(open) < 2 {
		return nil, nil, fmt.Errorf("%w: the plan has %d (a swarm needs at least 2 \"##\" or \"###\" sections with open \"- [ ]\" tasks)", errTooFewEpics, len(open))
	}
	n = min(n, len(open))
	sort.SliceStable(open, func(i, j int) bool { return open[i].Open > open[j].Open })
	parts = make([][]epic, n)
	load := make([]int, n)
	for _, e := range open {
		k := 0
		for i := range load {
			if load[i] < load[k] {
				k = i
			}
		}
		parts[k] = append(parts[k], e)
		load[k] += e.Open
	}
	return preamble, parts, nil
}

// workerPlan is the plan a worker gets: the plan's first lines (its title)
// and its epics, word for word.
func workerPlan(preamble []string, epics []epic) string {
	var b strings.Builder
	for _, l := range preamble {
		b.WriteString(l + "\n")
	}
	for _, e := range epics {
		b.WriteString("\n")
		for _, l := range e.Lines {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}

// headings are the epics' headings.
func headings(epics []epic) []string {
	out := make([]string, len(epics))
	for i, e := range epics {
		out[i] = e.Heading
	}
	return out
}

// completions ticks in plan the tasks that done has ticked: a task is the
// text after its checkbox, and each ticked task of done ticks the first
// open task of plan with the same text. It returns the new plan and how
// many tasks it ticked.
func completions(plan, done string) (string, int) {
	ticked := map[string]int{}
	for _, l := range strings.Split(done, "\n") {
		if doneRe().MatchString(l) {
			ticked[taskText(l)]++
		}
	}
	lines := strings.Split(plan, "\n")
	n := 0
	for i, l := range lines {
		if !openRe().MatchString(l) {
			continue
		}
		t := taskText(l)
		if ticked[t] > 0 {
			ticked[t]--
			lines[i] = strings.Replace(l, "- [ ]", "- [x]", 1)
			n++
		}
	}
	return strings.Join(lines, "\n"), n
}

func taskText(l string) string {
	m := taskRe().FindStringSubmatch(strings.TrimRight(l, "\r"))
	if m == nil {
		return ""
	}
	return m[1]
}

// count is the plan's ticked and all tasks.
func count(plan string) (done, total int) {
	for _, l := range strings.Split(plan, "\n") {
		switch {
		case openRe().MatchString(l):
			total++
		case doneRe().MatchString(l):
			done++
			total++
		}
	}
	return done, total
}
