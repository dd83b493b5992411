package ratelimit

import (
	"strconv"
	"testing"
)

// Whatever .call_count and .last_reset hold, reading them never panics and
// accepted values are what Save writes back.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"5\n", "08", "", " \n", "-1", "abc", "2026112202\n", "99999999999999999999999", "+5", "1e3"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if n, err := ParseCount(b); err == nil {
			if n < 0 {
				t.Fatalf("ParseCount(%q) = %d", b, n)
			}
			if m, err := ParseCount([]byte(strconv.Itoa(n) + "\n")); err != nil || m != n {
				t.Fatalf("count %d does not round-trip", n)
			}
		}
		if h, err := ParseHour(b); err == nil && h != "" {
			if len(h) != 10 || !allDigits(h) {
				t.Fatalf("ParseHour(%q) = %q", b, h)
			}
		}
	})
}
