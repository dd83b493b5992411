package readmodel

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/ralphloop/ralph_loop/internal/events"
)

// WriteSummary is the short view for a person: --status prints it after
// status.json, and the --monitor status pane shows it.
func (v *View) WriteSummary(w io.Writer) {
	fmt.Fprintln(w, "\nSummary:")
	fmt.Fprintf(w, "  State:     %s\n", v.StateLine())
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
		fmt.Fprintf(w, "  Tokens:    %d in, %d out, $%.4f so far\n", t.InputTokens, t.OutputTokens, t.CostUSD)
	}
	for _, u := range v.Usage {
		fmt.Fprintf(w, "  Usage:     %s\n", usageLine(u))
	}
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
	case "waiting":
		fmt.Fprintf(&b, " for %s", s.WaitingFor)
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
