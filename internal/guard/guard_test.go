package guard

import (
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
		if got := failureBackoff(tc.n); got != tc.want {
			t.Errorf("failureBackoff(%d) = %v, want %v", tc.n, got, tc.want)
		}
	}
}

type outcome struct {
	backoff time.Duration
	giveUp  bool
}

func TestGuardStories(t *testing.T) {
	fail := func(g *Guard) outcome { b, u := g.Failure(); return outcome{b, u} }
	ok := func(g *Guard) outcome { g.Success(); return outcome{} }

	tests := []struct {
		name  string
		max   int
		steps []func(*Guard) outcome
		want  []outcome
		count int // Consecutive() at the end
	}{
		{
			name:  "backs off 1s 2s 4s 8s then gives up at the 5th",
			max:   5,
			steps: []func(*Guard) outcome{fail, fail, fail, fail, fail},
			want:  []outcome{{time.Second, false}, {2 * time.Second, false}, {4 * time.Second, false}, {8 * time.Second, false}, {0, true}},
			count: 5,
		},
		{
			name:  "a success resets the count",
			max:   3,
			steps: []func(*Guard) outcome{fail, fail, ok, fail, fail},
			want:  []outcome{{time.Second, false}, {2 * time.Second, false}, {}, {time.Second, false}, {2 * time.Second, false}},
			count: 2,
		},
		{
			name:  "after giving up further failures still give up and do not count",
			max:   1,
			steps: []func(*Guard) outcome{fail, fail},
			want:  []outcome{{0, true}, {0, true}},
			count: 1,
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
			count: 5,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := New(tc.max, 0, 0)
			for i, step := range tc.steps {
				if got := step(g); got != tc.want[i] {
					t.Errorf("step %d = %+v, want %+v", i+1, got, tc.want[i])
				}
			}
			if got := g.Consecutive(); got != tc.count {
				t.Errorf("Consecutive() = %d, want %d", got, tc.count)
			}
			if tc.max >= 1 && g.Max() != tc.max || tc.max < 1 && g.Max() != defaultMaxFailures {
				t.Errorf("Max() = %d for New(%d, 0, 0)", g.Max(), tc.max)
			}
		})
	}
}
