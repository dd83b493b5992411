package console

import (
	"fmt"
	"strings"
	"time"

	"github.com/ralphloop/ralph_loop/internal/events"
)

// The words of the values more than one surface shows: the console and
// logs/ralph.log (render.go), the notifications and the dashboard's
// timeline (Headline), --report and --status say these values with these
// functions, so that they say the same thing in the same words.

// BreakerMove words a breaker transition: "CLOSED → HALF_OPEN (no
// progress in 2 loops)".
func BreakerMove(from, to, reason string) string {
	return fmt.Sprintf("%s → %s (%s)", from, to, reason)
}

// usageWindowLine words one known usage window: the driver and window,
// the used percent and status, and when it resets, "claude-code five_hour
// 92% used (allowed_warning), resets 2026-03-01 09:00 UTC".
func usageWindowLine(w events.UsageWindow) string {
	var b strings.Builder
	b.WriteString(w.Driver + " " + w.Window)
	if w.UsedPercent != nil {
		b.WriteString(" " + percent(*w.UsedPercent) + "% used")
	}
	b.WriteString(" (" + w.Status + ")")
	if w.ResetsAt != nil {
		b.WriteString(", resets " + resetTime(*w.ResetsAt))
	}
	return b.String()
}

// resetTime is when a usage window resets, local, with the date: a
// window may be days long.
func resetTime(t time.Time) string { return t.Local().Format("2006-01-02 15:04 MST") }

// waitWords word a wait of kind (a delay_started event's wait, a
// countdown's kind) of d: "Next loop in 00:00:10"; "" for a kind without
// words.
func waitWords(kind string, d time.Duration) string {
	label, ok := waitLabels[kind]
	if !ok {
		return ""
	}
	return label + " " + clock(d)
}
