package report_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/ralphloop/ralph_loop/internal/events"
	"github.com/ralphloop/ralph_loop/internal/report"
)

// The trackers' events of a run: counted, and each but the imports
// listed in the console's words with its loop.
func TestTrackers(t *testing.T) {
	l := newLog("r", t0)
	l.emit(events.Event{Type: events.RunStarted, Driver: "claude-code"})
	l.snap.Loop = 1
	l.emit(events.Event{Type: events.TaskImported, Tracker: "beads", Tasks: []string{"bd-1", "bd-2", "bd-3"}})
	l.emit(events.Event{Type: events.TaskClaimed, Tracker: "beads", Tasks: []string{"bd-1"}, Title: "One"})
	l.call(1, events.IterationCompleted, &events.Iteration{Outcome: "success", TasksTicked: []string{"[bd-1] One"}})
	l.emit(events.Event{Type: events.TaskClosed, Tracker: "beads", Tasks: []string{"bd-1"}, Title: "One", Message: "closed in beads"})
	l.snap.Loop = 2
	l.emit(events.Event{Type: events.TaskTaken, Tracker: "beads", Tasks: []string{"bd-2"}, Title: "Two", Message: "issue already claimed by bob"})
	l.emit(events.Event{Type: events.TrackerError, Tracker: "beads", Reason: "claim", Message: "'bd update bd-3' failed (exit 1)"})
	l.emit(events.Event{Type: events.TaskReleased, Tracker: "beads", Tasks: []string{"bd-3"}, Title: "Three", Message: "the run ended before it was done"})
	l.emit(events.Event{Type: events.RunFinished, Reason: "max_loops", ExitCode: new(4), Status: "stopped"})
	runs, err := report.Read(&l.buf)
	if err != nil || len(runs) != 1 {
		t.Fatalf("runs %v err %v", runs, err)
	}
	if n := len(runs[0].Trackers); n != 6 {
		t.Fatalf("%d tracker events: %+v", n, runs[0].Trackers)
	}
	var out bytes.Buffer
	report.WriteText(&out, runs[0])
	for _, want := range []string{
		"  Trackers: imported 3, claimed 1, closed 1, taken by others 1, released 1, tracker errors 1\n",
		"    loop 1: Claimed bd-1 (beads) for the next call: One\n",
		"    loop 1: bd-1 (beads) closed in beads: One\n",
		"    loop 2: bd-2 (beads) is taken by someone else (issue already claimed by bob); its line leaves the plan\n",
		"    loop 2: Tracker beads: claim skipped: 'bd update bd-3' failed (exit 1)\n",
		"    loop 2: Released bd-3 (beads): the run ended before it was done\n",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "Imported") {
		t.Errorf("imports listed:\n%s", out.String())
	}
}
