package store

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/ralphloop/ralph_loop/breaker"
	"github.com/ralphloop/ralph_loop/internal/ralphdir"
)

// FuzzLoadBreaker feeds arbitrary bytes as .circuit_breaker_state. Load must never
// panic or fail; a file it cannot use must be moved aside (so the next
// write cannot clobber evidence) and yield CLOSED; a file it can use must
// survive Save and Load unchanged.
func FuzzLoadBreaker(f *testing.F) {
	for _, name := range []string{"bash_fresh.json", "bash_open.json", "bash_after_cooldown.json", "bash_history.json"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "breaker", "testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, s := range []string{"", "{}", "null", "[]", `{"state":"OPEN"}`, `{"state":"CLOSED","consecutive_no_progress":"x"}`,
		`{"state":"HALF_OPEN","no_progress_loops":[1,2,"3"],"error_streak":[{"loop":1,"line":"é"}]}`, `{"state":"OPEN","last_change":"2026-03-01T10:00:00+00:00","consecutive_no_progress":4,"total_opens":3}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d := ralphdir.New(t.TempDir(), nil)
		path := d.Path(ralphdir.CircuitBreakerState)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := loadBreaker(d)
		if err != nil {
			t.Fatalf("Load: %v", err)
		}
		if s.State != breaker.Closed && s.State != "HALF_OPEN" && s.State != breaker.Open {
			t.Fatalf("Load gave state %q", s.State)
		}
		if _, statErr := os.Stat(path); statErr != nil {
			// Quarantined: must be the default state, and the bytes kept aside.
			if diff := cmp.Diff(breaker.State{State: breaker.Closed}, s); diff != "" {
				t.Fatalf("quarantined file gave a non-default state (-want +got):\n%s", diff)
			}
			moved, _ := filepath.Glob(path + ".corrupt-*")
			if len(moved) != 1 {
				t.Fatalf("file gone but %d quarantined copies", len(moved))
			}
			return
		}
		if err := SaveBreaker(d, s); err != nil {
			t.Fatalf("Save: %v", err)
		}
		again, err := loadBreaker(d)
		if err != nil {
			t.Fatalf("reload: %v", err)
		}
		if diff := cmp.Diff(s, again); diff != "" {
			t.Fatalf("Save/Load round trip changed the state (-first +second):\n%s", diff)
		}
	})
}
