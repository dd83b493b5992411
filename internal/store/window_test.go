package store

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/ralphloop/ralph_loop/internal/ralphdir"
	"github.com/ralphloop/ralph_loop/ratelimit"
)

func TestWindowLoad(t *testing.T) {
	tests := []struct {
		name       string
		count      *string // nil: file absent
		hour       *string
		want       ratelimit.Window
		warnings   int
		quarantine []string // files moved aside
	}{
		{"no files", nil, nil, ratelimit.Window{}, 0, nil},
		{"bash files", ptr("5\n"), ptr("2026112202\n"), ratelimit.Window{Hour: "2026112202", Count: 5}, 0, nil},
		{"no newline", ptr("7"), ptr("2026112202"), ratelimit.Window{Hour: "2026112202", Count: 7}, 0, nil},
		{"crlf", ptr("7\r\n"), ptr("2026112202\r\n"), ratelimit.Window{Hour: "2026112202", Count: 7}, 0, nil},
		{"leading zero is decimal", ptr("08\n"), ptr("2026112202\n"), ratelimit.Window{Hour: "2026112202", Count: 8}, 0, nil},
		{"empty files", ptr(""), ptr(""), ratelimit.Window{}, 0, nil},
		{"garbage count", ptr("abc\n"), ptr("2026112202\n"), ratelimit.Window{Hour: "2026112202", Count: 0}, 1, []string{ralphdir.CallCount}},
		{"negative count", ptr("-1\n"), ptr("2026112202\n"), ratelimit.Window{Hour: "2026112202", Count: 0}, 1, []string{ralphdir.CallCount}},
		{"huge count", ptr(strings.Repeat("9", 40) + "\n"), nil, ratelimit.Window{}, 1, []string{ralphdir.CallCount}},
		{"bad hour", ptr("3\n"), ptr("2026-11-22 02\n"), ratelimit.Window{Hour: "", Count: 3}, 1, []string{lastReset}},
		{"short hour", ptr("3\n"), ptr("20261122\n"), ratelimit.Window{Hour: "", Count: 3}, 1, []string{lastReset}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, warnings := newBreakerDir(t)
			if tc.count != nil {
				putBreaker(t, d, ralphdir.CallCount, *tc.count)
			}
			if tc.hour != nil {
				putBreaker(t, d, lastReset, *tc.hour)
			}
			got, err := loadWindow(d)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if len(*warnings) != tc.warnings {
				t.Errorf("warnings = %q, want %d", *warnings, tc.warnings)
			}
			for _, name := range tc.quarantine {
				if d.Exists(name) {
					t.Errorf("%s still in place", name)
				}
				if m, _ := filepath.Glob(d.Path(name) + ".corrupt-*"); len(m) != 1 {
					t.Errorf("%s not quarantined: %v", name, m)
				}
			}
		})
	}
}

func TestWindowSaveFormat(t *testing.T) {
	d, _ := newBreakerDir(t)
	if err := saveWindow(d, ratelimit.Window{Hour: "2026112202", Count: 6}); err != nil {
		t.Fatal(err)
	}
	if got := fileContent(t, d, ralphdir.CallCount); got != "6\n" {
		t.Errorf(".call_count = %q", got)
	}
	if got := fileContent(t, d, lastReset); got != "2026112202\n" {
		t.Errorf(".last_reset = %q", got)
	}
	if err := saveWindow(d, ratelimit.Window{Hour: "2026112202", Count: -1}); err == nil {
		t.Error("saving a negative count must fail")
	}
	if got := fileContent(t, d, ralphdir.CallCount); got != "6\n" {
		t.Errorf("a failed save changed .call_count to %q", got)
	}
}

// A .ralph/ left by the bash loop within the current hour is continued: the
// count is kept (5), a call is allowed, and the completed call makes it 6
// (conformance rate-call-count-increments).
func TestWindowBashLeftCountContinued(t *testing.T) {
	now := time.Now()
	d, warnings := newBreakerDir(t)
	putBreaker(t, d, ralphdir.CallCount, "5\n")
	putBreaker(t, d, lastReset, now.Format("2006010215")+"\n")
	w, rolled, err := refresh(d, now)
	if err != nil {
		t.Fatal(err)
	}
	if rolled || w.Count != 5 || !w.Allow(now, 100) {
		t.Fatalf("Refresh = %+v rolled=%v", w, rolled)
	}
	if err := saveWindow(d, w.Record(now)); err != nil {
		t.Fatal(err)
	}
	if got := fileContent(t, d, ralphdir.CallCount); got != "6\n" {
		t.Errorf(".call_count = %q, want 6", got)
	}
	if len(*warnings) != 0 {
		t.Errorf("warnings: %q", *warnings)
	}
}

// .last_reset from an earlier hour: counter reset to 0, .last_reset set to
// the current hour (conformance rate-hour-reset).
func TestWindowRefreshEarlierHour(t *testing.T) {
	now := time.Date(2026, 11, 22, 2, 8, 9, 0, time.Local)
	d, _ := newBreakerDir(t)
	putBreaker(t, d, ralphdir.CallCount, "50\n")
	putBreaker(t, d, lastReset, "2001010100\n")
	w, rolled, err := refresh(d, now)
	if err != nil {
		t.Fatal(err)
	}
	if !rolled || w != (ratelimit.Window{Hour: "2026112202", Count: 0}) {
		t.Fatalf("Refresh = %+v rolled=%v", w, rolled)
	}
	if got := fileContent(t, d, ralphdir.CallCount); got != "0\n" {
		t.Errorf(".call_count = %q", got)
	}
	if got := fileContent(t, d, lastReset); got != "2026112202\n" {
		t.Errorf(".last_reset = %q", got)
	}
	// A second Refresh in the same hour changes nothing.
	w2, rolled, err := refresh(d, now.Add(time.Minute))
	if err != nil || rolled || w2 != w {
		t.Fatalf("second Refresh = %+v rolled=%v err=%v", w2, rolled, err)
	}
}

// At the limit (3/3) the gate blocks; after the wait the window is fresh.
func TestWindowLimitReachedThenReset(t *testing.T) {
	now := time.Date(2026, 11, 22, 2, 9, 8, 0, time.Local)
	d, _ := newBreakerDir(t)
	if err := saveWindow(d, ratelimit.Window{Hour: ratelimit.HourKey(now), Count: 3}); err != nil {
		t.Fatal(err)
	}
	w, _, err := refresh(d, now)
	if err != nil {
		t.Fatal(err)
	}
	if w.Allow(now, 3) {
		t.Fatal("3/3 must block")
	}
	after := ratelimit.NextReset(now)
	if err := saveWindow(d, ratelimit.Fresh(after)); err != nil {
		t.Fatal(err)
	}
	w, rolled, err := refresh(d, after)
	if err != nil || rolled || w != (ratelimit.Window{Hour: "2026112203", Count: 0}) || !w.Allow(after, 3) {
		t.Fatalf("after reset: %+v rolled=%v err=%v", w, rolled, err)
	}
}

func ptr(s string) *string { return &s }

// refresh is what the loop does at the start of every iteration: load the
// window, roll it to now's hour, and when it rolled write it back.
func refresh(d *ralphdir.Dir, now time.Time) (ratelimit.Window, bool, error) {
	w, err := loadWindow(d)
	if err != nil {
		return ratelimit.Window{}, false, err
	}
	w, rolled := w.Roll(now)
	if rolled {
		if err := saveWindow(d, w); err != nil {
			return ratelimit.Window{}, false, err
		}
	}
	return w, rolled, nil
}

// PeekWindow reads what loadWindow reads and leaves an invalid file where it is.
func TestWindowPeek(t *testing.T) {
	d := ralphdir.New(t.TempDir(), func(string) {})
	if w := peekWindow(d); w != (ratelimit.Window{}) {
		t.Errorf("no files: %+v, want the zero window", w)
	}
	os.WriteFile(d.Path(ralphdir.CallCount), []byte("7\n"), 0o644)
	os.WriteFile(d.Path(lastReset), []byte("2026112401\n"), 0o644)
	if w := peekWindow(d); w.Count != 7 || w.Hour != "2026112401" {
		t.Errorf("Peek = %+v, want 7 calls in 2026112401", w)
	}
	os.WriteFile(d.Path(ralphdir.CallCount), []byte("-3\n"), 0o644)
	if w := peekWindow(d); w.Count != 0 {
		t.Errorf("invalid count: %+v, want 0", w)
	}
	if _, err := os.Stat(d.Path(ralphdir.CallCount)); err != nil {
		t.Errorf("Peek moved the invalid file: %v", err)
	}
}
