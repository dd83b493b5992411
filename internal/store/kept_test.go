package store

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ralphloop/ralph_loop/breaker"
	"github.com/ralphloop/ralph_loop/internal/ralphdir"
)

// Load creates a missing .exit_signals; when it cannot, that is one
// warning, apart from the error that stops the start.
func TestLoadReportsExitSignalsItCannotCreate(t *testing.T) {
	root := filepath.Join(t.TempDir(), ".ralph")
	if err := os.WriteFile(root, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	d := ralphdir.New(root, func(string) {})
	var warned []error
	New(d, nil, func(err error) { warned = append(warned, err) }, false).Load(time.Now())
	if len(warned) != 1 || !strings.HasPrefix(warned[0].Error(), "could not save "+d.Path(exitSignals)+": ") {
		t.Fatalf("Load warned %v; want the .exit_signals it could not create, once", warned)
	}
}

// Peek reads the kept state and changes nothing: a damaged file stays
// where it is and is named with what is wrong with it.
func TestPeekChangesNothing(t *testing.T) {
	d := newDir(t)
	now := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	files := map[string]string{
		ralphdir.CallCount:           "7\n",
		lastReset:                    "2030010203\n",
		ralphdir.CircuitBreakerState: "{not json",
		exitSignals:                  `{"test_only_loops": [], "done_signals": [1], "completion_indicators": []}`,
		qualityGateResults:           `{"overall_status": "pass", "mode": "warn", "custom_gates": []}`,
		reviewFindings:               "[]",
		reviewLastSHA:                "abc\n",
		ralphSession:                 `{"session_id": "s-1", "created_at": "2030-01-01T00:00:00+00:00", "last_used": "2030-01-01T00:00:00+00:00"}`,
	}
	for name, content := range files {
		if err := os.WriteFile(d.Path(name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	before := listDir(t, d.Root())
	k, damaged := Peek(d, now)
	if after := listDir(t, d.Root()); after != before {
		t.Errorf("Peek changed .ralph/:\nbefore %s\nafter  %s", before, after)
	}
	if k.Window.Count != 7 || k.Breaker.State != breaker.Closed || k.Gates == nil || k.ReviewSHA != "abc" || k.Session.SessionID != "s-1" || k.HaveBreaker {
		t.Errorf("Peek = %+v", k)
	}
	for _, name := range []string{ralphdir.CircuitBreakerState, reviewFindings} {
		if damaged[name] == nil {
			t.Errorf("damaged[%s] = nil; want what is wrong with it (damaged: %v)", name, damaged)
		}
	}
	if len(damaged) != 2 {
		t.Errorf("damaged = %v; want the breaker and the findings", damaged)
	}
}

// HaveBreaker tells a breaker read from its file from the fresh CLOSED
// state a missing or damaged file reads as, the same in Load and Peek.
func TestHaveBreaker(t *testing.T) {
	now := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, tc := range []struct {
		name, file string // file "": none
		want       bool
	}{
		{"missing", "", false},
		{"damaged", `{"state": "AJAR"}`, false},
		{"empty", "", false},
		{"open", `{"state": "OPEN", "reason": "stuck"}`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := newDir(t)
			if tc.file != "" || tc.name == "empty" {
				if err := os.WriteFile(d.Path(ralphdir.CircuitBreakerState), []byte(tc.file), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if k, _ := Peek(d, now); k.HaveBreaker != tc.want {
				t.Errorf("Peek: HaveBreaker = %v, want %v", k.HaveBreaker, tc.want)
			}
			k, err := New(d, nil, nil, false).Load(now)
			if err != nil {
				t.Fatal(err)
			}
			if k.HaveBreaker != tc.want {
				t.Errorf("Load: HaveBreaker = %v, want %v", k.HaveBreaker, tc.want)
			}
		})
	}
}

// listDir is the names and contents of the files in dir, as one string.
func listDir(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		data, _ := os.ReadFile(filepath.Join(dir, e.Name()))
		b.WriteString(e.Name() + "=" + string(data) + ";")
	}
	return b.String()
}
