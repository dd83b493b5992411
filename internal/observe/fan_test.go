package observe

import (
	"errors"
	"testing"
	"time"

	. "github.com/ralphloop/ralph_loop/internal/events"
)

var busT0 = time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)

func TestFanStampsReports(t *testing.T) {
	var got []Event
	b := New(func() time.Time { return busT0 }, "run-7")
	b.Add(Lines(func(e Event) { got = append(got, e) }))
	own := busT0.Add(time.Hour)
	b.WaitStarted(Moment{}, Wait{Kind: "loop_delay", Delay: 90 * time.Second, Until: own})
	b.WaitEnded(Moment{TS: own, RunID: "other"}, Wait{Kind: "loop_delay"})
	if len(got) != 2 {
		t.Fatalf("%d events", len(got))
	}
	if e := got[0]; e.V != SchemaVersion || !e.TS.Equal(busT0) || e.RunID != "run-7" || e.DelaySecs != 90 || e.Type != DelayStarted {
		t.Errorf("first %+v", e)
	}
	if e := got[1]; e.V != SchemaVersion || !e.TS.Equal(own) || e.RunID != "run-7" || e.Type != DelayEnded {
		t.Errorf("second %+v", e)
	}
}

type noticeRec struct {
	Observer
	ts []time.Time
	ns []any
}

func newRec() *noticeRec { return &noticeRec{Observer: Ignore} }

func (r *noticeRec) Said(ts time.Time, n Notice) { r.ts, r.ns = append(r.ts, ts), append(r.ns, n) }

func (r *noticeRec) Warned(ts time.Time, level Level, err error) {
	r.ts, r.ns = append(r.ts, ts), append(r.ns, Logged{Level: level, Text: err.Error()})
}

// What is said reaches the observers in order, stamped by the fan's
// clock; Log turns a composed text into a Logged notice.
func TestFanSays(t *testing.T) {
	b := New(func() time.Time { return busT0 }, "run")
	rec := newRec()
	var nEvents int
	b.Add(rec, Lines(func(Event) { nEvents++ }))
	b.Warned(time.Time{}, Warn, errors.New("boom"))
	b.Log(Info, "Loaded configuration from %s", ".ralphrc")
	b.Log(Warn, "plain")
	want := []any{Logged{Level: Warn, Text: "boom"}, Logged{Level: Info, Text: "Loaded configuration from .ralphrc"}, Logged{Level: Warn, Text: "plain"}}
	if len(rec.ns) != len(want) || nEvents != 0 {
		t.Fatalf("notices %v, events %d", rec.ns, nEvents)
	}
	for i := range want {
		if rec.ns[i] != want[i] || !rec.ts[i].Equal(busT0) {
			t.Errorf("notice %d: %v at %v, want %v", i, rec.ns[i], rec.ts[i], want[i])
		}
	}
}
