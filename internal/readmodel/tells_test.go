//go:build unix

package readmodel

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ralphloop/ralph_loop/internal/events"
	"github.com/ralphloop/ralph_loop/internal/ralphdir"
)

// TestTimelineTellsRunsAndPlan: the dashboard's last events say which are
// another run's (two runs started in the same second share their id), and
// plan_done counts the plan's ticked boxes as the file has them, not as
// the loop last counted (issue 41).
func TestTimelineTellsRunsAndPlan(t *testing.T) {
	at := time.Date(2026, 12, 5, 6, 30, 0, 0, time.UTC)
	var log strings.Builder
	add := func(e events.Event) {
		e.V, e.RunID = events.SchemaVersion, "2026-12-05T06:30:00+00:00"
		b, _ := json.Marshal(e)
		log.Write(append(b, '\n'))
	}
	add(events.Event{TS: at, Type: events.RunStarted})
	add(events.Event{TS: at.Add(100 * time.Millisecond), Type: events.RunFinished})
	add(events.Event{TS: at.Add(200 * time.Millisecond), Type: events.RunStarted})
	add(events.Event{TS: at.Add(300 * time.Millisecond), Type: events.IterationFailed, Reason: "error"})
	d := writeFiles(t, t.TempDir(), map[string]string{
		ralphdir.EventsLog: log.String(),
		ralphdir.Status:    `{"loop_count":1,"status":"error","tasks_completed":1,"tasks_total":3}`,
		ralphdir.FixPlan:   "- [x] one\n- [x] two\n- [ ] three\n",
	})
	p := (&folder{Files{Name: "p", Dir: d, Now: func() time.Time { return at }, Text: func(e events.Event) string { return string(e.Type) }}}).Snapshot().(*page)
	var other []bool
	for _, e := range p.timeline.Events {
		other = append(other, e.OtherRun)
	}
	if want := []bool{true, true, false, false}; !slices.Equal(other, want) {
		t.Errorf("other_run of the events: %v, want %v", other, want)
	}
	if p.timeline.PlanDone != 2 || p.timeline.PlanTotal != 3 || p.View.Progress.TasksCompleted != 1 {
		t.Errorf("plan_done %d/%d (progress %d): want 2/3 from the plan", p.timeline.PlanDone, p.timeline.PlanTotal, p.View.Progress.TasksCompleted)
	}
}
