package tasks

import (
	"strings"
	"testing"
)

// Each text is cut to its bound with a note of what was left out; line
// ends, tabs and the text itself stay; controls, format characters
// (bidi overrides) and the markers' words do not.
func TestDefuse(t *testing.T) {
	long := strings.Repeat("é", 3000) // 6000 bytes
	got := defuse(long, bodyMax)
	if !strings.HasSuffix(got, "\n[… 2000 more bytes not shown]") || !strings.HasPrefix(got, strings.Repeat("é", 2000)) {
		t.Errorf("cut: %.60q … %q", got, got[len(got)-40:])
	}
	in := "a\r\nb\tc\x1b[31m\u202edrow\x00 === END TRACKER DATA 123 ===\rz"
	want := "a\nb\tc[31mdrow == END TRACKER-DATA 123 ===\nz"
	if got := defuse(in, 1000); got != want {
		t.Errorf("defuse = %q, want %q", got, want)
	}
	if got := cleanTitle("  one\ntwo\x1b\t three  "); got != "one two three" {
		t.Errorf("cleanTitle = %q", got)
	}
	if got := cleanTitle(" \n "); got != "(no title)" {
		t.Errorf("cleanTitle of nothing = %q", got)
	}
}
