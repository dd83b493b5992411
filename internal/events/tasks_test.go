package events

import (
	"strings"
	"testing"
)

// The trackers' happenings in words: one line each, at its level, the
// tracker's text clipped; the same words head their notifications.
func TestTrackedWords(t *testing.T) {
	long := strings.Repeat("x", 300)
	keys := []string{"bd-1", "bd-2", "bd-3", "bd-4", "bd-5", "bd-6", "bd-7", "bd-8", "bd-9", "bd-10", "bd-11", "bd-12"}
	for _, tc := range []struct {
		t     Task
		level Level
		want  string
	}{
		{Task{Kind: TaskImported, Tracker: "beads", Keys: keys[:1]}, Info, "📥 Imported 1 task from beads into the plan: bd-1"},
		{Task{Kind: TaskImported, Tracker: "github", Keys: keys}, Info, "📥 Imported 12 tasks from github into the plan: bd-1, bd-2, bd-3, bd-4, bd-5, bd-6, bd-7, bd-8, bd-9, bd-10 and 2 more"},
		{Task{Kind: TaskImported, Tracker: "beads", Keys: keys[:2], Note: "9 more items are left out: the plan takes 300 of a tracker's"}, Info, "📥 Imported 2 tasks from beads into the plan: bd-1, bd-2 (9 more items are left out: the plan takes 300 of a tracker's)"},
		{Task{Kind: TaskClaimed, Tracker: "github", Keys: []string{"#7"}, Title: "Fix it"}, Info, "📌 Claimed #7 (github) for the next call: Fix it"},
		{Task{Kind: TaskTaken, Tracker: "beads", Keys: []string{"bd-1"}, Note: "Error claiming bd-1: issue already claimed by bob"}, Info, "bd-1 (beads) is taken by someone else (Error claiming bd-1: issue already claimed by bob); its line leaves the plan"},
		{Task{Kind: TaskClosed, Tracker: "beads", Keys: []string{"bd-1"}, Title: long, Note: "closed in beads"}, Success, "✅ bd-1 (beads) closed in beads: " + strings.Repeat("x", 99) + "…"},
		{Task{Kind: TaskReleased, Tracker: "beads", Keys: []string{"bd-1"}, Note: "the run ended before it was done"}, Info, "Released bd-1 (beads): the run ended before it was done"},
		{Task{Kind: TrackerError, Tracker: "github", Op: "sync", Err: "gh is not logged in"}, Warn, "Tracker github: sync skipped: gh is not logged in"},
	} {
		ps := tc.t.Lines(Moment{})
		if len(ps) != 1 || ps[0].Level != tc.level || ps[0].Text != tc.want {
			t.Errorf("%s: %+v, want %s %q", tc.t.Kind, ps, tc.level, tc.want)
		}
	}
	e := Event{Type: TaskClosed, Tracker: "beads", Tasks: []string{"bd-1"}, Title: "One", Message: "closed in beads"}
	if h := e.Headline(); h != "bd-1 (beads) closed in beads: One" {
		t.Errorf("Headline = %q", h)
	}
	if h := (Event{Type: TrackerError, Tracker: "beads", Reason: "claim", Message: "bd failed"}).Headline(); h != "Tracker beads: claim skipped: bd failed" {
		t.Errorf("Headline = %q", h)
	}
}
