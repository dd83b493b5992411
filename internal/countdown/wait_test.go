package countdown

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestWait(t *testing.T) {
	tests := []struct {
		name  string
		wait  time.Duration // deadline = start + wait
		ticks []time.Duration
	}{
		{"two whole seconds", 2 * time.Second, []time.Duration{2 * time.Second, time.Second}},
		{"fraction first", 2500 * time.Millisecond, []time.Duration{2500 * time.Millisecond, 2 * time.Second, time.Second}},
		{"under a second", 300 * time.Millisecond, []time.Duration{300 * time.Millisecond}},
		{"deadline now", 0, nil},
		{"deadline passed", -time.Minute, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				start := time.Now()
				until := start.Add(tc.wait)
				var ticks []time.Duration
				var at []time.Duration
				err := Wait(t.Context(), until, func(left time.Duration) {
					ticks = append(ticks, left)
					at = append(at, time.Since(start))
				})
				if err != nil {
					t.Fatalf("Wait: %v", err)
				}
				if diff := cmp.Diff(tc.ticks, ticks); diff != "" {
					t.Errorf("ticks (-want +got):\n%s", diff)
				}
				// Each tick happens when start+elapsed+left == deadline.
				for i := range ticks {
					if at[i]+ticks[i] != tc.wait {
						t.Errorf("tick %d at %v says %v left, deadline is %v", i, at[i], ticks[i], tc.wait)
					}
				}
				end := time.Now()
				if tc.wait > 0 && !end.Equal(until) {
					t.Errorf("ended at %v, want exactly %v", end, until)
				}
				if tc.wait <= 0 && !end.Equal(start) {
					t.Errorf("a passed deadline took %v", end.Sub(start))
				}
			})
		})
	}
}

// A long wait ends exactly on the deadline and ticks once per second.
func TestWaitHourTicksEverySecond(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		until := start.Add(time.Hour)
		n := 0
		prev := time.Hour + time.Second
		err := Wait(t.Context(), until, func(left time.Duration) {
			n++
			if prev-left != time.Second {
				t.Fatalf("tick after %v went from %v to %v", time.Since(start), prev, left)
			}
			prev = left
		})
		if err != nil {
			t.Fatal(err)
		}
		if n != 3600 || !time.Now().Equal(until) {
			t.Fatalf("ticks = %d, ended %v after start; want 3600 ticks and exactly 1h", n, time.Since(start))
		}
	})
}

func TestWaitCancelled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cause := errors.New("user pressed ctrl-c")
		ctx, cancel := context.WithCancelCause(t.Context())
		start := time.Now()
		ticks := 0
		err := Wait(ctx, start.Add(time.Hour), func(time.Duration) {
			ticks++
			if ticks == 3 {
				cancel(cause)
			}
		})
		if !errors.Is(err, cause) {
			t.Fatalf("err = %v, want the cancel cause", err)
		}
		if got := time.Since(start); got != 2*time.Second {
			t.Fatalf("returned after %v, want 2s (cancelled during the third tick)", got)
		}
	})
}

func TestWaitCancelledBeforeStart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		called := false
		err := Wait(ctx, time.Now().Add(time.Minute), func(time.Duration) { called = true })
		if !errors.Is(err, context.Canceled) || called {
			t.Fatalf("err = %v, tick called = %v; want context.Canceled and no tick", err, called)
		}
	})
}

// The deadline is wall-clock time: a deadline from time.Date (no monotonic
// reading) is honoured exactly.
func TestWaitWallClockDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		now := time.Now()
		until := time.Date(now.Year(), now.Month(), now.Day(), now.Hour(), now.Minute(), now.Second()+3, 0, now.Location())
		if err := Wait(t.Context(), until, nil); err != nil {
			t.Fatal(err)
		}
		if !time.Now().Equal(until) {
			t.Fatalf("now %v, want %v", time.Now(), until)
		}
	})
}
