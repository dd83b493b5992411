package console

import (
	"fmt"
	"strings"

	"github.com/ralphloop/ralph_loop/internal/clip"
	"github.com/ralphloop/ralph_loop/internal/events"
	"github.com/ralphloop/ralph_loop/internal/gates"
)

// gateNotices renders what the quality gates decided about a run's end:
// a failed gate, a completion held back, and the evidence of a completed
// run.
func gateNotices(n events.Notice) []part {
	switch n := n.(type) {
	case events.GateFailed:
		s := "Quality gate failed: " + gateWords(n.Failure)
		if n.Log != "" && n.Failure.Gate != gates.GateReported {
			s += "; full output: " + n.Log
		}
		return []part{text(events.Warn, s)}
	case events.TaskChecked:
		if n.Failure == nil {
			return []part{line(success, "✅ Check passed: %q (VERIFY_COMMAND)", flat(n.Task))}
		}
		return []part{line(events.Warn, "❌ Check failed: %q: %s; the task is open again%s", flat(n.Task), gateWords(*n.Failure), logWords(n.Log))}
	case events.CompletionHeld:
		mode := "QUALITY_GATE_MODE=" + n.Mode
		if n.Strict {
			mode = "COMPLETION_MODE=strict"
		}
		if n.Open > 0 {
			return []part{line(events.Warn, "Not done: %s, but %d of %d tasks in @fix_plan.md are open; going on (%s)",
				claimWords(n.Reason, n.Plan), n.Open, n.Plan.Total, mode)}
		}
		return []part{line(events.Warn, "Not done: %s, but %s; going on (%s)%s",
			claimWords(n.Reason, n.Plan), failuresWords(n.Failures), mode, logWords(n.Log))}
	}
	return nil
}

// gateWords names a failed gate and how it failed: "TEST_COMMAND `go test
// ./...` exited 1".
func gateWords(f gates.Failure) string {
	switch {
	case f.Gate == gates.GateReported:
		return "the agent reported TESTS_STATUS: FAILING"
	case f.TimedOut && f.Gate == gates.GateVerify:
		return fmt.Sprintf("%s `%s` timed out (VERIFY_TIMEOUT)", f.Gate, flat(f.Command))
	case f.TimedOut:
		return fmt.Sprintf("%s `%s` timed out (QUALITY_GATE_TIMEOUT)", f.Gate, flat(f.Command))
	}
	return fmt.Sprintf("%s `%s` exited %d", f.Gate, flat(f.Command), f.ExitCode)
}

// failuresWords: the first failed gate, and how many more.
func failuresWords(fs []gates.Failure) string {
	if len(fs) == 0 {
		return "a quality gate fails"
	}
	s := gateWords(fs[0])
	if len(fs) > 1 {
		s += fmt.Sprintf(" (and %d more)", len(fs)-1)
	}
	return s
}

// claimWords: what made the run look complete.
func claimWords(reason string, plan events.PlanCount) string {
	if plan.Have && plan.Total > 0 && plan.Done == plan.Total {
		return fmt.Sprintf("plan %d/%d ticked", plan.Done, plan.Total)
	}
	return "the agent reported completion (" + reason + ")"
}

func logWords(log string) string {
	if log == "" {
		return ""
	}
	return "; full output: " + log
}

// completedLine is the last line of a completed run: the evidence it
// rests on (plan, quality gates, last commit). Gates that fail (warn
// mode) make it a warning.
func completedLine(reason string, ev events.Evidence) part {
	var parts []string
	switch {
	case ev.Check != "":
		parts = append(parts, fmt.Sprintf("the goal's check `%s` passes", flat(ev.Check)))
	case ev.Plan.Have && ev.Plan.Total > 0:
		parts = append(parts, fmt.Sprintf("plan %d/%d", ev.Plan.Done, ev.Plan.Total))
	default:
		parts = append(parts, "no tasks in @fix_plan.md")
	}
	switch {
	case ev.Check != "" && ev.Gates != gates.StatusFail:
		// the goal's check is the gate
	case ev.Gates == "":
		parts = append(parts, "no quality gates configured")
	case ev.Gates == gates.StatusFail:
		parts = append(parts, "quality gates FAILING: "+failuresWords(ev.Failures)+logWords(ev.Log))
	default:
		parts = append(parts, "quality gates passing")
	}
	if ev.Commit != "" {
		c := "last commit " + ev.Commit
		if s := flat(ev.Subject); s != "" {
			c += " " + clip.Ellipsis(s, 60)
		}
		parts = append(parts, c)
	}
	if ev.Gates == gates.StatusFail {
		return line(events.Warn, "⚠️ Completed (%s) with failing quality gates, as QUALITY_GATE_MODE=%s allows: %s", reason, ev.Mode, strings.Join(parts, "; "))
	}
	return line(success, "✅ Completed (%s): %s", reason, strings.Join(parts, "; "))
}

// flat is text from the repository or the agent on one line: control
// characters become spaces, and it is cut to 200 characters.
func flat(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return ' '
		}
		return r
	}, s)
	return clip.Ellipsis(strings.TrimSpace(s), 200)
}
