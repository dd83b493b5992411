// Package lazyre holds regular expressions compiled at their first use
// rather than when the program starts: every start of ralph_loop pays for
// what package initialisation does (the sentinel's and a --version's
// included), and most runs never use most patterns.
package lazyre

import (
	"regexp"
	"sync"
)

// Compile returns a function that compiles pattern on its first call and
// returns the same *regexp.Regexp on every call. An invalid pattern
// panics at that first call, as regexp.MustCompile does.
func Compile(pattern string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(pattern) })
}
