package notify

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ralphloop/ralph_loop/internal/events"
)

// fake is a notifier that records what it is sent; with block set each
// send waits for release (or its context).
type fake struct {
	mu      sync.Mutex
	got     []string
	block   bool
	release chan struct{}
	fail    error
}

func (f *fake) String() string { return "fake" }

func (f *fake) send(ctx context.Context, m message) (string, error) {
	if f.block {
		select {
		case <-f.release:
		case <-ctx.Done():
			return "", errors.New("stopped: the run ended first")
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.got = append(f.got, fmt.Sprintf("%s %s %s", m.name, m.event.Type, m.text))
	return "", f.fail
}

func (f *fake) sent() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.got...)
}

// record collects warnings and hooks-log blocks.
type record struct {
	mu    sync.Mutex
	warns []string
	logs  []string
}

func (r *record) warn(s string) { r.mu.Lock(); r.warns = append(r.warns, s); r.mu.Unlock() }
func (r *record) log(s string)  { r.mu.Lock(); r.logs = append(r.logs, s); r.mu.Unlock() }

func testConfig(r *record) Config {
	return Config{On: []string{"run_finished", "breaker_opened"}, Timeout: 10 * time.Second, Project: "demo",
		Text: func(e events.Event) string { return "text of " + string(e.Type) }, Warn: r.warn, Log: r.log,
		Now: time.Now}
}

func TestDeliversSelectedInOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var r record
		f := &fake{}
		n := start(testConfig(&r), pick([]string{"run_finished", "breaker_opened"}), []target{f})
		n.event(events.Event{Type: events.IterationCompleted})
		n.event(events.Event{Type: events.BreakerChanged, To: "OPEN"})
		n.event(events.Event{Type: events.RunFinished})
		n.drain(10 * time.Second)
		want := []string{
			"breaker_opened breaker_changed ralph_loop [demo]: text of breaker_changed",
			"run_finished run_finished ralph_loop [demo]: text of run_finished",
		}
		if diff := cmp.Diff(want, f.sent()); diff != "" {
			t.Errorf("sent (-want +got):\n%s", diff)
		}
		if len(r.warns) != 0 || len(r.logs) != 2 || !strings.Contains(r.logs[1], "run_finished → fake: ok") {
			t.Errorf("warns %q, logs %q", r.warns, r.logs)
		}
		n.event(events.Event{Type: events.RunFinished}) // after Drain: ignored, no panic
	})
}

// A notifier that never answers never holds up Handle: its queue fills,
// the surplus is dropped and counted, and Drain returns at its bound.
func TestHandleNeverBlocks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var r record
		f := &fake{block: true, release: make(chan struct{})}
		n := start(testConfig(&r), pick([]string{"all"}), []target{f})
		n.event(events.Event{Type: events.DelayStarted})
		synctest.Wait()           // the worker has taken it and waits
		for range queueSize + 9 { // queueSize queued, 9 dropped
			n.event(events.Event{Type: events.DelayStarted})
		}
		start := time.Now()
		n.drain(5 * time.Second)
		if took := time.Since(start); took != 5*time.Second {
			t.Errorf("Drain took %s, want its bound of 5s", took)
		}
		want := []string{
			"notify: fake to fake failed: stopped: the run ended first (logs/hooks.log has its output)",
			"notify: 9 events for fake were dropped: its queue of 64 was full",
			"notify: 64 events for fake were not sent: the loop exited first",
		}
		want[0] = strings.Replace(want[0], "fake to", "all to", 1)
		if diff := cmp.Diff(want, r.warns); diff != "" {
			t.Errorf("warnings (-want +got):\n%s", diff)
		}
	})
}

// The run's end waits for the queue: the last event is delivered even
// when the notifier is slow, as long as it is within the bound.
func TestDrainWaitsForTheLastEvent(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var r record
		f := &fake{block: true, release: make(chan struct{})}
		n := start(testConfig(&r), pick([]string{"run_finished"}), []target{f})
		n.event(events.Event{Type: events.RunFinished})
		go func() { time.Sleep(3 * time.Second); close(f.release) }()
		start := time.Now()
		n.drain(10 * time.Second)
		if took := time.Since(start); took != 3*time.Second {
			t.Errorf("Drain took %s, want 3s", took)
		}
		if len(f.sent()) != 1 || len(r.warns) != 0 {
			t.Errorf("sent %q, warnings %q", f.sent(), r.warns)
		}
	})
}

func TestFailureWarnsOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var r record
		f := &fake{fail: errors.New("exit 3")}
		n := start(testConfig(&r), pick([]string{"run_finished"}), []target{f})
		n.event(events.Event{Type: events.RunFinished})
		n.drain(time.Second)
		if diff := cmp.Diff([]string{"notify: run_finished to fake failed: exit 3 (logs/hooks.log has its output)"}, r.warns); diff != "" {
			t.Errorf("warnings (-want +got):\n%s", diff)
		}
		if len(r.logs) != 1 || !strings.Contains(r.logs[0], "run_finished → fake: failed (0s): exit 3") {
			t.Errorf("logs %q", r.logs)
		}
	})
}

func TestNewNeedsANotifier(t *testing.T) {
	if n := New(Config{On: []string{"run_finished"}}); n != nil {
		t.Error("New without a notifier is not nil")
	}
	if n := New(Config{On: []string{"run_finished"}, Desktop: true, GOOS: "linux",
		LookPath: func(string) (string, error) { return "", errors.New("not found") }}); n != nil {
		t.Error("a desktop notifier without a tool is not nil")
	}
	if n := New(Config{Command: []string{"true"}}); n != nil {
		t.Error("New selecting nothing is not nil")
	}
	var none *Notifier
	none.drain(time.Second) // nil-safe
}

// A stop during the drain cuts its wait: the first to the bound it sends
// (the short bound after a stop), a second to zero.
func TestDrainCutByStops(t *testing.T) {
	for _, tc := range []struct {
		name string
		cuts []time.Duration // sent one second apart, from the drain's 1st second
		want time.Duration
	}{
		{"no stop: the whole bound", nil, time.Hour},
		{"one stop: the short bound", []time.Duration{1500 * time.Millisecond}, 2500 * time.Millisecond},
		{"a second stop: at once", []time.Duration{1500 * time.Millisecond, 0}, 2 * time.Second},
		{"a longer cut does not lengthen it", []time.Duration{2 * time.Hour}, time.Hour},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var r record
				f := &fake{block: true, release: make(chan struct{})}
				n := start(testConfig(&r), pick([]string{"run_finished"}), []target{f})
				n.event(events.Event{Type: events.RunFinished})
				cut := make(chan time.Duration)
				go func() {
					for _, d := range tc.cuts {
						time.Sleep(time.Second)
						cut <- d
					}
				}()
				start := time.Now()
				n.DrainCut(time.Hour, cut)
				if took := time.Since(start); took != tc.want {
					t.Errorf("DrainCut took %s, want %s", took, tc.want)
				}
			})
		})
	}
}

// drain is DrainCut without cuts.
func (n *Notifier) drain(bound time.Duration) { n.DrainCut(bound, nil) }
