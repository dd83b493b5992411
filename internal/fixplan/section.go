package fixplan

import (
	"bytes"
	"strings"

	"github.com/ralphloop/ralph_loop/internal/lazyre"
)

// A tracker's section of the plan (TASK_SOURCES, docs/TASKS.md) is a
// heading the loop owns ("## Tasks from beads") and one line per tracked
// item below it, in bmalph's import form:
//
//	## Tasks from beads
//	- [ ] [bd-a1b2] Fix the login redirect
//	- [x] [bd-c3d4] Add a health check
//
// The section runs from its heading to the next heading of any level (or
// the end of the file). The loop rewrites that stretch and nothing else:
// every byte before the heading and from the next heading on is kept as it
// was.

// Tracked is one line of a tracker's section: the item's key as the plan
// shows it ("bd-a1b2", "#123"), its title and whether its box is ticked.
type Tracked struct {
	Key   string
	Title string
	Done  bool
}

var (
	trackedRe = lazyre.Compile(`^` + ws + `*- \[([ xX])\]` + ws + `+\[([^\]\s]+)\]` + ws + `*(.*?)` + ws + `*$`)
	headingRe = lazyre.Compile(`^#{1,6}[ \t]`)
	keyRe     = lazyre.Compile(`^\[([^\]\s]+)\]`)
)

// Section returns the tracked lines of heading's section, in order, and
// whether the plan has that heading (a line equal to it, trailing blanks
// and "\r" aside). Lines of the section that are not tracked lines are
// not returned (WithSection drops them).
func Section(plan []byte, heading string) (items []Tracked, found bool) {
	start, end, ok := sectionBounds(plan, heading)
	if !ok {
		return nil, false
	}
	for _, l := range lines(plan[start:end]) {
		if m := trackedRe().FindStringSubmatch(l); m != nil {
			items = append(items, Tracked{Key: m[2], Title: m[3], Done: m[1] != " "})
		}
	}
	return items, true
}

// WithSection returns plan with heading's section holding items, one line
// each; every byte outside the section is kept. A plan without the heading
// gets the section at its end (after a blank line), unless items is empty.
// The section is written the same way each time, so writing back what
// Section read changes nothing once the section is in that form.
func WithSection(plan []byte, heading string, items []Tracked) []byte {
	start, end, ok := sectionBounds(plan, heading)
	if !ok && len(items) == 0 {
		return plan
	}
	// Lines end as the heading's line does, or the plan's first line.
	eol := "\n"
	if i := bytes.IndexByte(plan[start:], '\n'); i > 0 && plan[start+i-1] == '\r' {
		eol = "\r\n"
	}
	var b bytes.Buffer
	b.Grow(len(plan) + 64*len(items))
	if !ok {
		b.Write(plan)
		if len(plan) > 0 {
			if plan[len(plan)-1] != '\n' {
				b.WriteString(eol)
			}
			if !bytes.HasSuffix(plan, []byte("\n\n")) && !bytes.HasSuffix(plan, []byte("\n\r\n")) {
				b.WriteString(eol)
			}
		}
		writeSection(&b, heading, items, eol)
		return b.Bytes()
	}
	b.Write(plan[:start])
	writeSection(&b, heading, items, eol)
	if end < len(plan) {
		b.WriteString(eol) // a blank line before the next heading
	}
	b.Write(plan[end:])
	if bytes.Equal(b.Bytes(), plan) {
		return plan
	}
	return b.Bytes()
}

// writeSection writes the heading and one line per item.
func writeSection(b *bytes.Buffer, heading string, items []Tracked, eol string) {
	b.WriteString(heading + eol)
	for _, it := range items {
		box := "- [ ] "
		if it.Done {
			box = "- [x] "
		}
		b.WriteString(box + "[" + it.Key + "] " + oneLine(it.Title) + eol)
	}
}

// oneLine keeps a title on its line: line breaks become spaces.
func oneLine(s string) string {
	return strings.TrimSpace(strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s))
}

// sectionBounds finds heading's section: start is the offset of the
// heading line, end that of the next heading line (or len(plan)).
func sectionBounds(plan []byte, heading string) (start, end int, ok bool) {
	off := 0
	for off < len(plan) {
		next := len(plan)
		if i := bytes.IndexByte(plan[off:], '\n'); i >= 0 {
			next = off + i + 1
		}
		l := strings.TrimRight(string(plan[off:next]), " \t\r\n")
		switch {
		case !ok && l == heading:
			start, ok = off, true
		case ok && headingRe().MatchString(l):
			return start, off, true
		}
		off = next
	}
	return start, len(plan), ok
}

// TrackedKey is the key of a tracked task, given as its text without the
// box ("[bd-a1b2] Fix the login redirect", as NextTask and Ticked give it
// once the box is cut off), or "" when the task is no tracked line.
func TrackedKey(task string) string {
	task = strings.TrimSpace(task)
	for _, box := range []string{"- [ ]", "- [x]", "- [X]"} {
		task = strings.TrimSpace(strings.TrimPrefix(task, box))
	}
	if m := keyRe().FindStringSubmatch(task); m != nil {
		return m[1]
	}
	return ""
}
