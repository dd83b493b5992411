package guard

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// step is one transient failure's answer.
type step struct {
	Wait   time.Duration
	GiveUp bool
}

// run records transient failures, each one after the previous wait (the
// next try fails at once), until the guard gives up or n are done.
func run(g *Guard, t0 time.Time, n int) []step {
	var out []step
	now := t0
	for range n {
		w, up := g.Transient(now)
		out = append(out, step{w, up})
		if up {
			break
		}
		now = now.Add(w)
	}
	return out
}

func TestTransientBacksOffToRetryMaxDelay(t *testing.T) {
	g := New(5, 30*time.Minute, 0)
	got := run(g, time.Unix(0, 0), 14)
	var want []step
	for _, s := range []float64{1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 1800, 1800, 1800} {
		want = append(want, step{Wait: time.Duration(s * float64(time.Second))})
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("waits (-want +got):\n%s", diff)
	}
	if g.Consecutive() != 0 {
		t.Errorf("Consecutive() = %d: transient failures must not count", g.Consecutive())
	}
}

// The default outage: 30 min waits, and the try at 6 h that fails gives up.
func TestTransientGivesUpAtOutageMax(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	g := New(5, 0, 6*time.Hour)
	steps := run(g, t0, 1000)
	last := steps[len(steps)-1]
	if !last.GiveUp {
		t.Fatalf("never gave up: %d steps", len(steps))
	}
	var total time.Duration
	for _, s := range steps {
		total += s.Wait
	}
	if total != 6*time.Hour {
		t.Errorf("gave up after %v of waits, want exactly 6h (OUTAGE_MAX)", total)
	}
	if steps[len(steps)-2].Wait > defaultRetryMaxDelay {
		t.Errorf("a wait of %v passes RETRY_MAX_DELAY", steps[len(steps)-2].Wait)
	}
	since, tries, on := g.Outage()
	if !since.Equal(t0) || tries != len(steps) || !on {
		t.Errorf("Outage() = %v %d %v", since, tries, on)
	}
}

func TestSuccessEndsTheOutage(t *testing.T) {
	t0 := time.Unix(1000, 0)
	g := New(5, time.Minute, time.Hour)
	g.Transient(t0)
	g.Transient(t0.Add(time.Second))
	g.Failure() // an unrecognised failure between them is counted
	if _, _, on := g.Outage(); !on || g.Consecutive() != 1 {
		t.Fatalf("outage on %v, consecutive %d", on, g.Consecutive())
	}
	g.Success()
	if _, tries, on := g.Outage(); on || tries != 0 {
		t.Fatalf("after a success: outage %v tries %d", on, tries)
	}
	// A new outage starts from the first wait and its own clock.
	later := t0.Add(2 * time.Hour)
	if w, up := g.Transient(later); w != time.Second || up {
		t.Errorf("first wait of a new outage = %v %v", w, up)
	}
	if since, _, _ := g.Outage(); !since.Equal(later) {
		t.Errorf("new outage since %v, want %v", since, later)
	}
}

func TestOutageSettings(t *testing.T) {
	g := New(5, 0, -1)
	if g.maxDelay != defaultRetryMaxDelay || g.OutageMax() != 0 {
		t.Errorf("New(5, 0, -1): max delay %v, outage max %v", g.maxDelay, g.OutageMax())
	}
	// Waits shorter than a second (a test's RETRY_MAX_DELAY=10ms).
	g = New(5, 10*time.Millisecond, 0)
	if w, _ := g.Transient(time.Unix(0, 0)); w != 10*time.Millisecond {
		t.Errorf("first wait with RETRY_MAX_DELAY=10ms = %v", w)
	}
}
