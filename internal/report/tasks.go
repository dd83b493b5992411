package report

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/ralphloop/ralph_loop/internal/events"
)

// Tracked is one of the trackers' events of a run (TASK_SOURCES,
// docs/TASKS.md): items imported, claimed, taken by someone else,
// closed, released, or a tracker command that failed.
type Tracked struct {
	At      time.Time   `json:"at"`
	Loop    int         `json:"loop"`
	Type    events.Type `json:"type"`
	Tracker string      `json:"tracker"`
	Tasks   []string    `json:"tasks,omitempty"`
	Title   string      `json:"title,omitempty"`
	Message string      `json:"message,omitempty"`
	Step    string      `json:"step,omitempty"` // tracker_error: sync, claim, close, release
}

// isTracked reports whether t is a tracker's event.
func isTracked(t events.Type) bool {
	for _, k := range events.TaskTypes {
		if t == k {
			return true
		}
	}
	return false
}

func (s *Summary) track(e events.Event) {
	s.Trackers = append(s.Trackers, Tracked{At: e.TS, Loop: e.Loop, Type: e.Type, Tracker: e.Tracker, Tasks: e.Tasks,
		Title: e.Title, Message: e.Message, Step: e.Reason})
}

// writeTrackers says what the run did with the trackers' items: how many
// of each, then every event but the imports, in the console's words.
func writeTrackers(w io.Writer, ts []Tracked) {
	if len(ts) == 0 {
		return
	}
	counts := map[events.Type]int{}
	for _, t := range ts {
		n := len(t.Tasks)
		if t.Type == events.TrackerError {
			n = 1
		}
		counts[t.Type] += n
	}
	words := []string{
		fmt.Sprintf("imported %d", counts[events.TaskImported]), fmt.Sprintf("claimed %d", counts[events.TaskClaimed]),
		fmt.Sprintf("closed %d", counts[events.TaskClosed]),
	}
	for _, k := range []struct {
		t    events.Type
		word string
	}{{events.TaskTaken, "taken by others"}, {events.TaskReleased, "released"}, {events.TrackerError, "tracker errors"}} {
		if counts[k.t] > 0 {
			words = append(words, fmt.Sprintf("%s %d", k.word, counts[k.t]))
		}
	}
	fmt.Fprintf(w, "\n  Trackers: %s\n", strings.Join(words, ", "))
	for _, t := range ts {
		if t.Type == events.TaskImported {
			continue
		}
		e := events.Event{Type: t.Type, Tracker: t.Tracker, Tasks: t.Tasks, Title: t.Title, Message: t.Message, Reason: t.Step}
		fmt.Fprintf(w, "    loop %d: %s\n", t.Loop, e.Headline())
	}
}
