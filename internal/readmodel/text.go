package readmodel

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/ralphloop/ralph_loop/internal/events"
	"github.com/ralphloop/ralph_loop/internal/safetext"
)

// WriteSummary is the short view for a person: --status prints it after
// status.json, and the --monitor status pane shows it.
func (v *View) WriteSummary(w io.Writer) {
	fmt.Fprintln(w, "\nSummary:")
	fmt.Fprintf(w, "  State:     %s\n", v.StateLine())
	if q := v.State.Question; q != nil {
		fmt.Fprintf(w, "  Question:  %s (the agent asked in loop %d)\n", events.Quoted(q.Text, 1000), q.Loop)
		fmt.Fprintf(w, "  Answer:    ralph_loop --answer \"YOUR ANSWER\" here, or the dashboard's answer form%s\n", answerFile(q))
	}
	if v.Progress.Task != "" {
		fmt.Fprintf(w, "  Task:      %s\n", v.Progress.Task)
	}
	if v.Progress.TasksTotal > 0 {
		fmt.Fprintf(w, "  Tasks:     %d/%d done\n", v.Progress.TasksCompleted, v.Progress.TasksTotal)
	}
	if s := v.Progress.LastLoopSummary; s != "" {
		fmt.Fprintf(w, "  Last loop: %s\n", s)
	}
	if b := v.Breaker; b != nil {
		fmt.Fprintf(w, "  Breaker:   %s (no progress %d, same error %d, permission denials %d, opens %d)\n",
			b.State, b.ConsecutiveNoProgress, b.ConsecutiveSameError, b.ConsecutivePermissionDenials, b.TotalOpens)
	}
	fmt.Fprintf(w, "  Calls:     %d/%d this hour, next reset %s", v.Calls.ThisHour, v.Calls.Max, v.Calls.NextReset)
	if c := v.Calls; c.Run > 0 {
		fmt.Fprintf(w, "; %d this run", c.Run)
		if c.Failed > 0 {
			fmt.Fprintf(w, " (%d failed)", c.Failed)
		}
	}
	fmt.Fprintln(w)
	if t := v.Totals; t != nil {
		if t.InputTokens == 0 && t.OutputTokens == 0 && t.CostUSD == 0 {
			// nothing counted: the agent did not say, which is not "0"
			fmt.Fprintln(w, "  Tokens:    unknown (the agent did not report them)")
		} else {
			fmt.Fprintf(w, "  Tokens:    %d in, %d out, $%.4f so far\n", t.InputTokens, t.OutputTokens, t.CostUSD)
		}
	}
	for _, u := range v.Usage {
		fmt.Fprintf(w, "  Usage:     %s\n", usageLine(u))
	}
	if v.Quota != nil {
		v.Quota.write(w)
	}
	if s := v.Swarm; s != nil {
		fmt.Fprintf(w, "  Swarm:     %s\n", safetext.Line(s.words()))
	}
}

// answerFile is the question's answer file, as the summary names it.
func answerFile(q *events.Question) string {
	if q.AnswerFile == "" {
		return ""
	}
	return ", or write the answer to " + safetext.Line(q.AnswerFile)
}

// words is a swarm worker for --status: its place in the swarm and what
// all its runs took.
func (s *swarmView) words() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s of a --swarm, %s", s.Worker, s.State)
	switch {
	case s.NotMerged:
		fmt.Fprintf(&b, ": not merged into %s (its work stays on branch %s)", s.Base, s.Branch)
		if s.Note != "" {
			fmt.Fprintf(&b, ": %s", s.Note)
		}
	case s.Merged:
		fmt.Fprintf(&b, ": merged into %s", s.Base)
	}
	fmt.Fprintf(&b, "; all its runs: %d calls, $%.4f", s.Calls, s.CostUSD)
	return b.String()
}

// usageLine is one usage window for a person: driver and window, the
// used percent and status, and the reset time (local).
func usageLine(u events.UsageWindow) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s", u.Driver, u.Window)
	if u.UsedPercent != nil {
		fmt.Fprintf(&b, " %s%% used", strconv.FormatFloat(*u.UsedPercent, 'f', -1, 64))
	}
	fmt.Fprintf(&b, " (%s)", u.Status)
	if u.ResetsAt != nil {
		fmt.Fprintf(&b, ", resets %s", u.ResetsAt.Local().Format("2006-01-02 15:04 MST"))
	}
	return b.String()
}

// StateLine is what the loop is doing, in one line: the phase, the pid,
// what it waits for or why it stopped, the loop and the running call.
func (v *View) StateLine() string {
	s := v.State
	var b strings.Builder
	b.WriteString(strings.ReplaceAll(s.Phase, "_", " "))
	if s.PID > 0 {
		fmt.Fprintf(&b, " (pid %d)", s.PID)
	}
	switch s.Phase {
	case "waiting", "waiting_for_answer":
		if s.Phase == "waiting" {
			fmt.Fprintf(&b, " for %s", s.WaitingFor)
		}
		if s.Until != nil {
			fmt.Fprintf(&b, " until %s", s.Until.Local().Format("15:04:05"))
		}
	case "stopped":
		if s.Reason != "" {
			fmt.Fprintf(&b, ": %s", s.Reason)
		}
	}
	if v.Progress.Loop > 0 {
		fmt.Fprintf(&b, ", loop %d", v.Progress.Loop)
	}
	if e := v.Progress.CallElapsedSecs; e != nil {
		fmt.Fprintf(&b, ", agent call running for %s", (time.Duration(*e) * time.Second).String())
	}
	return b.String()
}
