// Package clip shortens strings for logs, state files and prompts without
// splitting a UTF-8 sequence.
package clip

import "unicode/utf8"

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
