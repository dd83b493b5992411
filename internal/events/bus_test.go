package events

import (
	"errors"
	"testing"
	"time"
)

var busT0 = time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)

func TestBusStampsEvents(t *testing.T) {
	var got []Event
	b := NewBus(func() time.Time { return busT0 }, "run-7")
	b.Add(sinkFunc(func(e Event) { got = append(got, e) }))
	own := busT0.Add(time.Hour)
	b.Emit(Event{Type: DelayStarted, Delay: 90 * time.Second})
	b.Emit(Event{Type: DelayEnded, TS: own, V: 99, RunID: "other"})
	if len(got) != 2 {
		t.Fatalf("%d events", len(got))
	}
	if e := got[0]; e.V != SchemaVersion || !e.TS.Equal(busT0) || e.RunID != "run-7" || e.DelaySecs != 90 {
		t.Errorf("first %+v", e)
	}
	if e := got[1]; e.V != SchemaVersion || !e.TS.Equal(own) || e.RunID != "run-7" {
		t.Errorf("second %+v", e)
	}
}

type sinkFunc func(Event)

func (f sinkFunc) Handle(e Event) { f(e) }

type noticeRec struct {
	ts []time.Time
	ns []Notice
}

func (r *noticeRec) Notice(ts time.Time, n Notice) { r.ts, r.ns = append(r.ts, ts), append(r.ns, n) }

// Notices reach the notice sinks in order, stamped by the bus clock; Log
// turns a composed text into a Logged notice.
func TestBusNotes(t *testing.T) {
	b := NewBus(func() time.Time { return busT0 }, "run")
	var rec noticeRec
	var events int
	b.Add(&rec, sinkFunc(func(Event) { events++ }))
	err := errors.New("boom")
	b.Note(Warning{Err: err})
	b.Log(Info, "Loaded configuration from %s", ".ralphrc")
	b.Log(Warn, "plain")
	want := []Notice{Warning{Err: err}, Logged{Level: Info, Text: "Loaded configuration from .ralphrc"}, Logged{Level: Warn, Text: "plain"}}
	if len(rec.ns) != len(want) || events != 0 {
		t.Fatalf("notices %v, events %d", rec.ns, events)
	}
	for i := range want {
		if rec.ns[i] != want[i] || !rec.ts[i].Equal(busT0) {
			t.Errorf("notice %d: %v at %v, want %v", i, rec.ns[i], rec.ts[i], want[i])
		}
	}
}

// The bus words an event's typed values with the words it was given, so
// every sink of the event sees the same text; a text the emitter set
// stays, and without words the values stay unworded.
func TestBusWordsTypedValues(t *testing.T) {
	var got []Event
	b := NewBus(func() time.Time { return busT0 }, "run-7")
	b.Add(sinkFunc(func(e Event) { got = append(got, e) }))
	stop := Stop{Kind: StopSignal, Signal: "SIGINT"}
	failure := Failure{Kind: CallTimedOut, Code: 124}
	b.Emit(Event{Type: RunFinished, Stop: &stop})
	b.SetWords(Words{
		Stop:    func(s Stop) string { return "stopped by " + s.Signal },
		Failure: func(f Failure) string { return "timed out" },
	})
	b.Emit(Event{Type: RunFinished, Stop: &stop})
	b.Emit(Event{Type: IterationTimedOut, Failure: &failure})
	b.Emit(Event{Type: RunFinished, Stop: &stop, Message: "own words", Reason: "SIGINT"})
	b.Emit(Event{Type: RunFinished})
	want := []struct{ msg, reason string }{{"", ""}, {"stopped by SIGINT", ""}, {"", "timed out"}, {"own words", "SIGINT"}, {"", ""}}
	for i, w := range want {
		if got[i].Message != w.msg || got[i].Reason != w.reason {
			t.Errorf("event %d: message %q reason %q, want %q %q", i, got[i].Message, got[i].Reason, w.msg, w.reason)
		}
	}
}
