package breaker

import (
	"testing"
	"time"
)

func TestParseISO(t *testing.T) {
	want := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	for _, in := range []string{
		"2026-03-01T10:00:00+00:00", "2026-03-01T10:00:00Z", "2026-03-01T10:00:00.75Z",
		"2026-03-01T11:00:00+01:00", "2026-03-01T10:00:00+0000", "2026-03-01T10:00:00",
	} {
		if got := parseISO(in); !got.Equal(want) {
			t.Errorf("parseISO(%q) = %v, want %v", in, got, want)
		}
	}
	for _, in := range []string{"", "null", "yesterday", "2026-13-01T10:00:00Z"} {
		if got := parseISO(in); !got.IsZero() {
			t.Errorf("parseISO(%q) = %v, want the zero time", in, got)
		}
	}
}
