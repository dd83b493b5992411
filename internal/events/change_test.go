package events

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// changeRec is a change sink that also takes events, recording what it got.
type changeRec struct {
	name string
	got  *[]string
	err  error
	n    int
}

func (r *changeRec) Apply(c Change) error {
	*r.got = append(*r.got, r.name)
	return r.err
}

func (r *changeRec) Handle(Event) { r.n++ }

func TestRecordHandsChangesInOrderAndJoinsErrors(t *testing.T) {
	b := NewBus(time.Now, "run")
	var got []string
	errA, errB := errors.New("a failed"), errors.New("b failed")
	a := &changeRec{name: "a", got: &got}
	bb := &changeRec{name: "b", got: &got}
	b.Add(a, bb)

	if err := b.Record(WindowChanged{}); err != nil {
		t.Fatalf("Record: %v, want nil", err)
	}
	bb.err = errB
	if err := b.Record(LoopStarted{SHA: "x"}); err != errB {
		t.Fatalf("Record with one failing sink: %v, want that sink's error itself", err)
	}
	a.err = errA
	err := b.Record(AnalysisCleared{})
	if !errors.Is(err, errA) || !errors.Is(err, errB) {
		t.Fatalf("Record with two failing sinks: %v, want both errors", err)
	}
	if want := "a b a b a b"; strings.Join(got, " ") != want {
		t.Fatalf("order: %q, want %q", strings.Join(got, " "), want)
	}
	b.Emit(Event{Type: RunStarted})
	if a.n != 1 || bb.n != 1 {
		t.Fatalf("a change sink that is also a Sink got %d and %d events, want 1", a.n, bb.n)
	}
}
