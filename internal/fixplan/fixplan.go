package fixplan

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/ralphloop/ralph_loop/internal/clip"
	"github.com/ralphloop/ralph_loop/internal/lazyre"
)

// ws is POSIX [[:space:]]: Go's \s lacks the vertical tab.
const ws = `[\t\n\v\f\r ]`

var (
	openRe     = lazyre.Compile(`^` + ws + `*- \[ \]`)
	doneRe     = lazyre.Compile(`^` + ws + `*- \[[xX]\]`)
	doneStory  = lazyre.Compile(`^` + ws + `*-` + ws + `*\[[xX]\]` + ws + `*Story` + ws + `+[0-9]`)
	detailLine = lazyre.Compile(`^` + ws + `+>`)
	storyLine  = lazyre.Compile(`^\s*-\s*\[([ xX])\]\s*Story\s+([0-9.]+):\s*(.+?)$`)
)

// nextTaskMax is the longest NextTask result, in characters.
const nextTaskMax = 100

// Counts are the plan's checkbox tasks.
type Counts struct {
	Checked   int
	Unchecked int
}

// Total is Checked + Unchecked.
func (c Counts) Total() int { return c.Checked + c.Unchecked }

// lines splits data into lines without their terminators ("\n" or "\r\n").
func lines(data []byte) []string {
	if len(data) == 0 {
		return nil
	}
	s := strings.TrimSuffix(string(data), "\n")
	out := strings.Split(s, "\n")
	for i, l := range out {
		out[i] = strings.TrimSuffix(l, "\r")
	}
	return out
}

// Count counts the open and done checkbox tasks, indented ones included.
func Count(plan []byte) Counts {
	var c Counts
	for _, l := range lines(plan) {
		switch {
		case openRe().MatchString(l):
			c.Unchecked++
		case doneRe().MatchString(l):
			c.Checked++
		}
	}
	return c
}

// NextTask returns the first open task line with surrounding whitespace
// removed and cut to nextTaskMax characters, checkbox included
// ("- [ ] Story 1.2: Login"); "" when every task is done.
func NextTask(plan []byte) string {
	for _, l := range lines(plan) {
		if openRe().MatchString(l) {
			return clip.Runes(strings.Trim(l, " \t\n\v\f\r"), nextTaskMax)
		}
	}
	return ""
}

// Collapse removes the indented "> ..." detail lines directly below every
// done "Story N" task, so the agent does not re-read finished stories.
// Open stories keep their details; all other bytes are kept as they are.
// changed reports whether a line was removed. Collapse is idempotent.
func Collapse(plan []byte) (out []byte, changed bool) {
	var b bytes.Buffer
	b.Grow(len(plan))
	skipping := false
	rest := plan
	for len(rest) > 0 {
		line := rest
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			line = rest[:i+1]
		}
		rest = rest[len(line):]
		text := strings.TrimRight(string(line), "\r\n")
		switch {
		case doneStory().MatchString(text):
			skipping = true
		case skipping && detailLine().MatchString(text):
			changed = true
			continue
		default:
			skipping = false
		}
		b.Write(line)
	}
	if !changed {
		return plan, false
	}
	return b.Bytes(), true
}

// MismatchWarning is the log line when the agent's
// TASKS_COMPLETED_THIS_LOOP claim does not match delta, the change in the
// plan's done boxes (analysis.Result.ApplyFixPlanDelta decides that it
// does not).
func MismatchWarning(claimed, delta int) string {
	return fmt.Sprintf("Progress tracking mismatch: claimed %d completed task(s) but checkbox delta was %d. Completion signals suppressed for this loop.", claimed, delta)
}

// Progress is status.json's tasks_completed and tasks_total: the Story
// lines as bmalph counts them (countStories), or every checkbox task when
// the plan has no stories.
func Progress(plan []byte) (done, total int) {
	if st := countStories(plan); st.Total > 0 {
		return st.Completed, st.Total
	}
	c := Count(plan)
	return c.Checked, c.Total()
}

// stories is the progress bmalph shows: only "- [ ] Story <id>: <title>"
// lines count (bmalph src/transition/story-id.ts), plain tasks do not.
type stories struct {
	Completed int
	Total     int
	Next      string // "Story 1.2: Login" for the first open story, or ""
}

// countStories counts the plan's Story lines the way bmalph does.
func countStories(plan []byte) stories {
	var s stories
	for _, l := range lines(plan) {
		m := storyLine().FindStringSubmatch(l)
		if m == nil {
			continue
		}
		s.Total++
		if m[1] != " " {
			s.Completed++
		} else if s.Next == "" {
			s.Next = strings.TrimSpace("Story " + m[2] + ": " + m[3])
		}
	}
	return s
}

// Ticked returns the tasks that were open in before and are checked in
// after, as their text without the checkbox ("Task A"), in plan order and
// cut to nextTaskMax characters. A task is matched by its text: one that
// was reworded as it was ticked is not found.
func Ticked(before, after []byte) []string {
	open := map[string]int{}
	for _, l := range lines(before) {
		if openRe().MatchString(l) {
			open[taskText(l)]++
		}
	}
	var out []string
	for _, l := range lines(after) {
		if !doneRe().MatchString(l) {
			continue
		}
		if t := taskText(l); open[t] > 0 {
			open[t]--
			out = append(out, clip.Runes(t, nextTaskMax))
		}
	}
	return out
}

// taskText is a checkbox line without its indent and its "- [ ]" or "- [x]".
func taskText(line string) string {
	return strings.Trim(strings.TrimLeft(line, " \t\n\v\f\r")[len("- [ ]"):], " \t\n\v\f\r")
}

// Task is one checkbox line of the plan.
type Task struct {
	Text string `json:"text"` // without the indent and the checkbox, cut to nextTaskMax characters
	Done bool   `json:"done"`
}

// Tasks lists the plan's checkbox tasks in order, indented ones included:
// at most max of them (all when max <= 0), and how many there were.
func Tasks(plan []byte, max int) ([]Task, int) {
	var out []Task
	n := 0
	for _, l := range lines(plan) {
		done := doneRe().MatchString(l)
		if !done && !openRe().MatchString(l) {
			continue
		}
		n++
		if max <= 0 || len(out) < max {
			out = append(out, Task{Text: clip.Runes(taskText(l), nextTaskMax), Done: done})
		}
	}
	return out, n
}

// asideRe is a task set aside with an unanswered question ("- [?]"):
// neither open nor done, as the bash loop and bmalph count.
var asideRe = lazyre.Compile(`^` + ws + `*- \[\?\]`)

// SetAside sets the plan's first open task aside with note: its box
// becomes "- [?]" (neither open nor done: the loop and bmalph count it
// out, and the agent moves on to the next task) and note follows on an
// indented detail line ("  > note", on one line). It returns the new
// plan and the task's text, or changed false when no task is open.
func SetAside(plan []byte, note string) (out []byte, task string, changed bool) {
	var b bytes.Buffer
	b.Grow(len(plan) + len(note) + 16)
	rest := plan
	for len(rest) > 0 {
		line := rest
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			line = rest[:i+1]
		}
		rest = rest[len(line):]
		text := strings.TrimRight(string(line), "\r\n")
		if changed || !openRe().MatchString(text) {
			b.Write(line)
			continue
		}
		changed, task = true, taskText(text)
		indent := text[:len(text)-len(strings.TrimLeft(text, " \t\n\v\f\r"))]
		eol := string(line[len(text):])
		if eol == "" {
			eol = "\n"
		}
		b.WriteString(strings.Replace(text, "- [ ]", "- [?]", 1) + eol)
		b.WriteString(indent + "  > " + strings.Join(strings.Fields(note), " ") + eol)
	}
	if !changed {
		return plan, "", false
	}
	return b.Bytes(), task, true
}

// SetAsideCount is how many tasks are set aside ("- [?]").
func SetAsideCount(plan []byte) int {
	n := 0
	for _, l := range lines(plan) {
		if asideRe().MatchString(l) {
			n++
		}
	}
	return n
}
