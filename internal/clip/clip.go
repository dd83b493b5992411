// Package clip shortens strings for logs, state files and prompts without
// splitting a UTF-8 sequence, and measures and cuts text for a terminal in
// display columns.
package clip

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/clipperhouse/displaywidth"
)

// Width is the number of columns s takes on a terminal: a wide (East
// Asian) character or an emoji takes two, a combining mark or a variation
// selector none, as grapheme clusters are drawn. East Asian ambiguous
// characters (the box-drawing ones among them) count as one.
func Width(s string) int { return displaywidth.String(s) }

// Columns returns s cut to at most n columns, the last of them "…", when
// s is wider than n (Width); otherwise (and for n <= 0) s as it is. A wide
// character that would straddle the limit is left out, so the result may
// be one column narrower than n.
func Columns(s string, n int) string {
	if n <= 0 {
		return s
	}
	return displaywidth.TruncateString(s, n, "…")
}

// Runes returns the first n runes of s (all of s when it is shorter).
func Runes(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i := 0
	for pos := range s {
		if i == n {
			return s[:pos]
		}
		i++
	}
	return s
}

// Ellipsis returns s cut to n runes, the last of them "…", when s is
// longer than n runes; otherwise (and for n <= 0) s as it is.
func Ellipsis(s string, n int) string {
	if n <= 0 || utf8.RuneCountInString(s) <= n {
		return s
	}
	return Runes(s, n-1) + "…"
}

// Bytes returns at most n bytes of s, cut back to the start of a UTF-8
// sequence so the result stays valid where s was.
func Bytes(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}

// valueMax is how much of a value a message quotes.
const valueMax = 200

// Value makes a value someone supplied safe inside a one-line message:
// control characters (newlines, escape sequences) are written as Go
// escapes, and a long value is clipped to 200 bytes with a note of its
// full length, "… (1048576 bytes)".
func Value(s string) string {
	out := s
	if strings.IndexFunc(s, unicode.IsControl) >= 0 {
		q := strconv.Quote(s)
		out = q[1 : len(q)-1]
	}
	if len(out) > valueMax {
		out = Bytes(out, valueMax) + fmt.Sprintf("… (%d bytes)", len(s))
	}
	return out
}
