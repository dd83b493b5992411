package templates

import (
	"fmt"
	"strings"
)

// heldTailMax caps, in characters, the gate output the held-completion
// notice quotes.
const heldTailMax = 400

// Held is a completion the loop did not accept: the agent ticked every
// task of the plan (or signalled that it is done) while a blocking quality
// gate fails, or (COMPLETION_MODE=strict) said it is done while tasks are
// open. The next loop is told which tasks or which gate, and how the
// gate's output ends.
type Held struct {
	PlanDone, PlanTotal int // the plan's ticked and total tasks; PlanTotal 0: no plan to speak of
	// Open: the tasks still open when the agent said it was done (strict
	// mode); 0 when the gates alone refused the completion.
	Open     int
	Gate     string // what failed: "TEST_COMMAND", "QUALITY_GATES" or "TESTS_STATUS"; "" for none
	Command  string // the failing command ("" when the agent's own TESTS_STATUS failed it)
	ExitCode int
	TimedOut bool
	Tail     string // the last lines of its output
	More     int    // further gates that fail as well
}

// heldNotice is the sentence that tells the agent its completion was not
// accepted, with the failing gate's output tail (cut to heldTailMax
// characters, on one line).
func heldNotice(h Held) string {
	var b strings.Builder
	b.WriteString("NOT DONE: ")
	if h.Open > 0 {
		fmt.Fprintf(&b, "you said the work is done, but %d of %d tasks in @fix_plan.md are open: finish them, or remove them from the plan with a reason. ", h.Open, h.PlanTotal)
		if h.Gate == "" {
			b.WriteString("The run ends only when no task is open and every quality gate passes. ")
			return b.String()
		}
		b.WriteString("Also, ")
	} else if h.PlanTotal > 0 && h.PlanDone == h.PlanTotal {
		fmt.Fprintf(&b, "every task in @fix_plan.md is ticked (%d/%d), but ", h.PlanDone, h.PlanTotal)
	} else {
		b.WriteString("you reported the work complete, but ")
	}
	switch {
	case h.Command == "":
		b.WriteString("you reported TESTS_STATUS: FAILING")
	case h.TimedOut:
		fmt.Fprintf(&b, "the quality gate %s `%s` times out", h.Gate, h.Command)
	default:
		fmt.Fprintf(&b, "the quality gate %s `%s` fails (exit %d)", h.Gate, h.Command, h.ExitCode)
	}
	if h.More > 0 {
		fmt.Fprintf(&b, " (and %d more)", h.More)
	}
	b.WriteString(". The run ends only when every quality gate passes: make it pass. ")
	b.WriteString(outputEnds(h.Tail))
	return b.String()
}

// outputEnds quotes the end of a command's output for the agent: "Its
// output ends: …", on one line and cut to its last heldTailMax characters
// ("" for no output).
func outputEnds(tail string) string {
	t := oneLine(tail)
	if t == "" {
		return ""
	}
	if n := len([]rune(t)); n > heldTailMax {
		t = "…" + string([]rune(t)[n-heldTailMax+1:])
	}
	return "Its output ends: " + t + " "
}

// oneLine joins s's whitespace runs into single spaces.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
