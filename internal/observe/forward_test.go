package observe_test

import (
	"reflect"
	"testing"
	"time"

	"github.com/ralphloop/ralph_loop/internal/dashboard"
	"github.com/ralphloop/ralph_loop/internal/observe"
)

// The fan hands every report, whatever its method, to every observer
// once, in the order they were added: a Fan method that forgot to pass a
// report on, or passed it twice, fails here.
func TestFanForwardsEveryMethod(t *testing.T) {
	var got []string
	fan := observe.New(time.Now, "run")
	fan.Add(dashboard.Poker(func() { got = append(got, "a") }), dashboard.Poker(func() { got = append(got, "b") }))
	obs := reflect.TypeFor[observe.Observer]()
	fv := reflect.ValueOf(fan)
	for i := range obs.NumMethod() {
		m := obs.Method(i)
		got = nil
		args := make([]reflect.Value, m.Type.NumIn())
		for j := range args {
			args[j] = reflect.Zero(m.Type.In(j))
		}
		fv.MethodByName(m.Name).Call(args)
		if len(got) != 2 || got[0] != "a" || got[1] != "b" {
			t.Errorf("%s reached the observers as %v, want [a b]", m.Name, got)
		}
	}
	if obs.NumMethod() < 15 {
		t.Fatalf("only %d methods on Observer", obs.NumMethod())
	}
}
