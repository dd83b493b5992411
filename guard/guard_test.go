package guard

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"
)

func TestBackoff(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want time.Duration
	}{
		{-1, 0}, {0, 0},
		{1, time.Second}, {2, 2 * time.Second}, {3, 4 * time.Second}, {4, 8 * time.Second},
		{5, 16 * time.Second}, {6, 32 * time.Second}, {7, 64 * time.Second}, {8, 128 * time.Second},
		{9, 256 * time.Second}, {10, 300 * time.Second}, {11, 300 * time.Second},
		{64, 300 * time.Second}, {1 << 30, 300 * time.Second},
	} {
		if got := Backoff(tc.n); got != tc.want {
			t.Errorf("Backoff(%d) = %v, want %v", tc.n, got, tc.want)
		}
	}
}

type outcome struct {
	backoff time.Duration
	giveUp  bool
}

func TestGuardStories(t *testing.T) {
	fail := func(g *Guard) outcome { b, u := g.Failure(KindExit, "exit code 1: boom"); return outcome{b, u} }
	ok := func(g *Guard) outcome { g.Success(); return outcome{} }
	canceled := func(g *Guard) outcome {
		b, u := g.Report(fmt.Errorf("agent call: %w", context.Canceled))
		return outcome{b, u}
	}
	stopped := func(g *Guard) outcome { b, u := g.Failure(KindInterrupted, "SIGINT"); return outcome{b, u} }
	timeout := func(g *Guard) outcome { b, u := g.Failure(KindTimeout, "timed out after 15m"); return outcome{b, u} }

	tests := []struct {
		name  string
		max   int
		steps []func(*Guard) outcome
		want  []outcome
		count int // Consecutive() at the end
		gave  bool
	}{
		{
			name:  "backs off 1s 2s 4s 8s then gives up at the 5th",
			max:   5,
			steps: []func(*Guard) outcome{fail, fail, fail, fail, fail},
			want:  []outcome{{time.Second, false}, {2 * time.Second, false}, {4 * time.Second, false}, {8 * time.Second, false}, {0, true}},
			count: 5, gave: true,
		},
		{
			name:  "a success resets the count",
			max:   3,
			steps: []func(*Guard) outcome{fail, fail, ok, fail, fail},
			want:  []outcome{{time.Second, false}, {2 * time.Second, false}, {}, {time.Second, false}, {2 * time.Second, false}},
			count: 2,
		},
		{
			name:  "user stops neither count nor reset",
			max:   3,
			steps: []func(*Guard) outcome{fail, canceled, stopped, fail, canceled, timeout},
			want:  []outcome{{time.Second, false}, {}, {}, {2 * time.Second, false}, {}, {0, true}},
			count: 3, gave: true,
		},
		{
			name:  "after giving up further failures still give up",
			max:   1,
			steps: []func(*Guard) outcome{fail, fail},
			want:  []outcome{{0, true}, {0, true}},
			count: 1, gave: true,
		},
		{
			name:  "a success after giving up starts over",
			max:   2,
			steps: []func(*Guard) outcome{fail, fail, ok, fail},
			want:  []outcome{{time.Second, false}, {0, true}, {}, {time.Second, false}},
			count: 1,
		},
		{
			name:  "max below 1 means the default of 5",
			max:   0,
			steps: []func(*Guard) outcome{fail, fail, fail, fail, fail},
			want:  []outcome{{time.Second, false}, {2 * time.Second, false}, {4 * time.Second, false}, {8 * time.Second, false}, {0, true}},
			count: 5, gave: true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := New(tc.max)
			for i, step := range tc.steps {
				if got := step(g); got != tc.want[i] {
					t.Errorf("step %d = %+v, want %+v", i+1, got, tc.want[i])
				}
			}
			if got := g.Consecutive(); got != tc.count {
				t.Errorf("Consecutive() = %d, want %d", got, tc.count)
			}
			if gave := g.Err() != nil; gave != tc.gave {
				t.Errorf("Err() = %v, want given up = %v", g.Err(), tc.gave)
			}
		})
	}
}

func TestGaveUpError(t *testing.T) {
	g := New(2)
	g.Failure(KindTimeout, "timed out after 15m")
	if _, giveUp := g.Report(errors.New("exit code 1: Error: not logged in")); !giveUp {
		t.Fatal("second failure with max 2 did not give up")
	}
	err := g.Err()
	if !errors.Is(err, ErrGaveUp) {
		t.Fatalf("errors.Is(%v, ErrGaveUp) = false", err)
	}
	want := "agent failed 2 times in a row (last: exit code 1: Error: not logged in); check the agent output and stderr in .ralph/logs/ and the agent's login and network, then run ralph_loop again"
	if err.Error() != want {
		t.Errorf("Err() =\n%s\nwant\n%s", err, want)
	}
	var gu *GaveUpError
	if !errors.As(err, &gu) || gu.Count != 2 || gu.Last.Kind != KindExit {
		t.Errorf("GaveUpError = %+v, want count 2, kind %q", gu, KindExit)
	}
	g.Reset()
	if g.Err() != nil || g.Consecutive() != 0 || g.Last() != (Failure{}) {
		t.Errorf("after Reset: Err %v, Consecutive %d, Last %+v", g.Err(), g.Consecutive(), g.Last())
	}
}

func TestFailureError(t *testing.T) {
	if got := (&Failure{Kind: KindUsageLimit}).Error(); got != "usage_limit" {
		t.Errorf("Failure without detail = %q", got)
	}
	if !errors.Is(&Failure{Kind: KindInterrupted}, ErrStopped) {
		t.Error("an interrupted Failure does not match ErrStopped")
	}
	if errors.Is(&Failure{Kind: KindCrash}, ErrStopped) {
		t.Error("a crash matches ErrStopped")
	}
}
