package fixplan

import (
	"bytes"
	"strings"

	"github.com/ralphloop/ralph_loop/internal/clip"
)

// Untick opens again the first checked task whose text (as Ticked gives
// it) is task: its "- [x]" becomes "- [ ]", every other byte stays. ok is
// false when no checked task has that text.
func Untick(plan []byte, task string) (out []byte, ok bool) {
	start := 0
	for start < len(plan) {
		end := bytes.IndexByte(plan[start:], '\n')
		if end < 0 {
			end = len(plan)
		} else {
			end += start
		}
		line := strings.TrimSuffix(string(plan[start:end]), "\r")
		if doneRe().MatchString(line) && clip.Runes(taskText(line), nextTaskMax) == task {
			box := start + strings.Index(line, "- [") + len("- [")
			out = append(append(append([]byte{}, plan[:box]...), ' '), plan[box+1:]...)
			return out, true
		}
		start = end + 1
	}
	return plan, false
}
