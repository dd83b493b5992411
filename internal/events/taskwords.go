package events

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ralphloop/ralph_loop/internal/clip"
)

// Lines: what happened to a tracker's items, at m.
func (t Task) Lines(Moment) []Line { return t.lines() }

// tracked words what happened to a tracker's items (docs/TASKS.md). The
// keys and titles are the tracker's text: clipped here, and made safe
// (no control reaches the terminal) on the way out, as all text is.
func (t Task) lines() []Line {
	what := t.Tracker
	if len(t.Keys) == 1 {
		what = clip.Ellipsis(t.Keys[0], 40) + " (" + t.Tracker + ")"
	}
	title := ""
	if t.Title != "" {
		title = ": " + clip.Ellipsis(t.Title, 100)
	}
	switch t.Kind {
	case TaskImported:
		note := ""
		if t.Note != "" {
			note = " (" + t.Note + ")"
		}
		return []Line{logf(Info, "📥 Imported %s from %s into the plan: %s%s", tasksWord(len(t.Keys)), t.Tracker, keyList(t.Keys), note)}
	case TaskClaimed:
		return []Line{logf(Info, "📌 Claimed %s for the next call%s", what, title)}
	case TaskTaken:
		return []Line{logf(Info, "%s is taken by someone else (%s); its line leaves the plan", what, t.Note)}
	case TaskClosed:
		return []Line{logf(Success, "✅ %s %s%s", what, t.Note, title)}
	case TaskReleased:
		return []Line{logf(Info, "Released %s: %s", what, t.Note)}
	case TrackerError:
		return []Line{logf(Warn, "Tracker %s: %s skipped: %s", t.Tracker, t.Op, t.Err)}
	}
	return nil
}

// keyList is at most ten keys, then how many more.
func keyList(keys []string) string {
	const most = 10
	shown := make([]string, 0, most)
	for _, k := range keys[:min(len(keys), most)] {
		shown = append(shown, clip.Ellipsis(k, 40))
	}
	s := strings.Join(shown, ", ")
	if len(keys) > most {
		s += fmt.Sprintf(" and %d more", len(keys)-most)
	}
	return s
}

// tasksWord is "1 task" or "N tasks".
func tasksWord(n int) string {
	if n == 1 {
		return "1 task"
	}
	return fmt.Sprintf("%d tasks", n)
}

// taskHeadline is a tracker's event in one line (notifications, the
// dashboard's timeline), in the console's words.
func taskHeadline(e Event) string {
	ps := (Task{Kind: e.Type, Tracker: e.Tracker, Keys: e.Tasks, Title: e.Title, Note: e.Message, Op: e.Reason, Err: e.Message}).lines()
	if len(ps) == 0 {
		return string(e.Type)
	}
	// The console's pictogram is no part of a headline.
	text := ps[0].Text
	if r, size := utf8.DecodeRuneInString(text); r > unicode.MaxASCII && strings.HasPrefix(text[size:], " ") {
		text = text[size+1:]
	}
	return text
}
