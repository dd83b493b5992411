package templates

import (
	"fmt"
	"strings"
)

// TaskCheck is a task the agent ticked whose VERIFY_COMMAND failed: the
// loop opened it again, and the next call is told why.
type TaskCheck struct {
	Task     string
	Command  string
	ExitCode int
	TimedOut bool
	Tail     string // the end of the check's output
}

// taskCheckNotice tells the agent which ticked tasks failed their check,
// with the first one's output tail (cut to heldTailMax characters, on one
// line).
func taskCheckNotice(cs []TaskCheck) string {
	if len(cs) == 0 {
		return ""
	}
	var b strings.Builder
	c := cs[0]
	fmt.Fprintf(&b, "CHECK FAILED: you ticked %q, but its check VERIFY_COMMAND `%s` ", c.Task, c.Command)
	if c.TimedOut {
		b.WriteString("timed out")
	} else {
		fmt.Fprintf(&b, "fails (exit %d)", c.ExitCode)
	}
	if len(cs) > 1 {
		fmt.Fprintf(&b, " (and the checks of %d more ticked tasks fail)", len(cs)-1)
	}
	b.WriteString(", so it is open again: make the check pass, then tick it. ")
	b.WriteString(outputEnds(c.Tail))
	return b.String()
}
