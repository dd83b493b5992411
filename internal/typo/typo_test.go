package typo

import "testing"

func TestNearest(t *testing.T) {
	flags := []string{"--monitor", "--max-loops", "--max-cost", "--help"}
	for _, tc := range []struct{ word, want string }{
		{"--mointor", "--monitor"}, // an adjacent swap is one edit
		{"--max-loop", "--max-loops"},
		{"--MONITOR", "--monitor"},
		{"--hlep", "--help"},
		{"--bogus-flag", ""},
		{"x", ""},
	} {
		if got := Nearest(tc.word, flags); got != tc.want {
			t.Errorf("Nearest(%q) = %q, want %q", tc.word, got, tc.want)
		}
	}
}
