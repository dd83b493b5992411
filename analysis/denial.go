package analysis

import (
	"strings"
)

// The permission-denial heuristic: only the first
// paragraph of the agent's text, before any status block, is looked at, so
// old errors quoted later in a reply do not count.

var denialInline = []string{
	"requires approval before it can run",
	"requires approval before it can proceed",
	"not allowed to use tool",
	"not permitted to use tool",
}

// denialLine reports whether one trimmed line of the first paragraph reads
// as a tool refusal.
func denialLine(line string) bool {
	l := foldString(strings.TrimLeft(line, spaceChars)) // ASCII only, like tr
	switch {
	case strings.HasPrefix(l, "permission denied:"), strings.HasPrefix(l, "denied permission:"):
		return containsAny(l, "approval", "tool", "command", "blocked", "not allowed", "not permitted")
	case strings.HasPrefix(l, "approval required:"):
		return containsAny(l, "run", "proceed", "tool", "command", "blocked")
	}
	return containsAny(l, denialInline...)
}

func containsAny(s string, subs ...string) bool {
	for _, x := range subs {
		if strings.Contains(s, x) {
			return true
		}
	}
	return false
}

// textHasDenial applies the heuristic to a whole text (used for the work
// summary line on the text path, as the bash loop does).
func textHasDenial(text string) bool {
	f := scanString(text, 0)
	return f.Denial
}
