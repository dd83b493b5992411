package clip

import (
	"testing"
	"unicode/utf8"
)

func TestRunes(t *testing.T) {
	for _, tc := range []struct {
		s    string
		n    int
		want string
	}{
		{"hello", 10, "hello"},
		{"hello", 5, "hello"},
		{"hello", 3, "hel"},
		{"héllo", 2, "hé"},
		{"日本語", 2, "日本"},
		{"abc", 0, ""},
		{"", 3, ""},
	} {
		if got := Runes(tc.s, tc.n); got != tc.want {
			t.Errorf("Runes(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.want)
		}
	}
}

func TestEllipsis(t *testing.T) {
	for _, tc := range []struct {
		s    string
		n    int
		want string
	}{
		{"hello", 5, "hello"},
		{"hello", 4, "hel…"},
		{"日本語", 2, "日…"},
		{"hello", 1, "…"},
		{"hello", 0, "hello"},
	} {
		if got := Ellipsis(tc.s, tc.n); got != tc.want {
			t.Errorf("Ellipsis(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.want)
		}
	}
}

func TestBytes(t *testing.T) {
	for _, tc := range []struct {
		s    string
		n    int
		want string
	}{
		{"hello", 10, "hello"},
		{"hello", 3, "hel"},
		{"héllo", 2, "h"}, // é is two bytes: never half of it
		{"héllo", 3, "hé"},
		{"日本語", 4, "日"},
		{"abc", 0, ""},
	} {
		got := Bytes(tc.s, tc.n)
		if got != tc.want || !utf8.ValidString(got) {
			t.Errorf("Bytes(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.want)
		}
	}
}
