package console

import (
	"strings"
	"testing"

	"github.com/ralphloop/ralph_loop/internal/events"
)

// The trackers' happenings in words: one line each, at its level, the
// tracker's text clipped; the same words head their notifications.
func TestTrackedWords(t *testing.T) {
	long := strings.Repeat("x", 300)
	keys := []string{"bd-1", "bd-2", "bd-3", "bd-4", "bd-5", "bd-6", "bd-7", "bd-8", "bd-9", "bd-10", "bd-11", "bd-12"}
	for _, tc := range []struct {
		t     events.Task
		level events.Level
		want  string
	}{
		{events.Task{Kind: events.TaskImported, Tracker: "beads", Keys: keys[:1]}, events.Info, "📥 Imported 1 task from beads into the plan: bd-1"},
		{events.Task{Kind: events.TaskImported, Tracker: "github", Keys: keys}, events.Info, "📥 Imported 12 tasks from github into the plan: bd-1, bd-2, bd-3, bd-4, bd-5, bd-6, bd-7, bd-8, bd-9, bd-10 and 2 more"},
		{events.Task{Kind: events.TaskImported, Tracker: "beads", Keys: keys[:2], Note: "9 more items are left out: the plan takes 300 of a tracker's"}, events.Info, "📥 Imported 2 tasks from beads into the plan: bd-1, bd-2 (9 more items are left out: the plan takes 300 of a tracker's)"},
		{events.Task{Kind: events.TaskClaimed, Tracker: "github", Keys: []string{"#7"}, Title: "Fix it"}, events.Info, "📌 Claimed #7 (github) for the next call: Fix it"},
		{events.Task{Kind: events.TaskTaken, Tracker: "beads", Keys: []string{"bd-1"}, Note: "Error claiming bd-1: issue already claimed by bob"}, events.Info, "bd-1 (beads) is taken by someone else (Error claiming bd-1: issue already claimed by bob); its line leaves the plan"},
		{events.Task{Kind: events.TaskClosed, Tracker: "beads", Keys: []string{"bd-1"}, Title: long, Note: "closed in beads"}, success, "✅ bd-1 (beads) closed in beads: " + strings.Repeat("x", 99) + "…"},
		{events.Task{Kind: events.TaskReleased, Tracker: "beads", Keys: []string{"bd-1"}, Note: "the run ended before it was done"}, events.Info, "Released bd-1 (beads): the run ended before it was done"},
		{events.Task{Kind: events.TrackerError, Tracker: "github", Op: "sync", Err: "gh is not logged in"}, events.Warn, "Tracker github: sync skipped: gh is not logged in"},
	} {
		ps := tracked(tc.t)
		if len(ps) != 1 || ps[0].level != tc.level || ps[0].text != tc.want {
			t.Errorf("%s: %+v, want %s %q", tc.t.Kind, ps, tc.level, tc.want)
		}
	}
	e := events.Event{Type: events.TaskClosed, Tracker: "beads", Tasks: []string{"bd-1"}, Title: "One", Message: "closed in beads"}
	if h := Headline(e); h != "bd-1 (beads) closed in beads: One" {
		t.Errorf("Headline = %q", h)
	}
	if h := Headline(events.Event{Type: events.TrackerError, Tracker: "beads", Reason: "claim", Message: "bd failed"}); h != "Tracker beads: claim skipped: bd failed" {
		t.Errorf("Headline = %q", h)
	}
}
