package events

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/ralphloop/ralph_loop/internal/clip"
)

// The words of the values more than one surface shows: the console and
// logs/ralph.log (the Lines of every notice and happening), the
// notifications and the dashboard's timeline (Event.Headline), --report
// and --status say these values with these functions, so that they say
// the same thing in the same words.

// BreakerMove words a breaker transition: "CLOSED → HALF_OPEN (no
// progress in 2 loops)".
func BreakerMove(from, to, reason string) string {
	return fmt.Sprintf("%s → %s (%s)", from, to, reason)
}

// usageWindowLine words one known usage window: the driver and window,
// the used percent and status, and when it resets, "claude-code five_hour
// 92% used (allowed_warning), resets 2026-03-01 09:00 UTC".
func usageWindowLine(w UsageWindow) string {
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

// resetWords says when a usage window resets, at the time and zone the
// engine gave.
func resetWords(w UsageWindow) string {
	if w.ResetsAt == nil {
		return "its reset time was not reported"
	}
	return "it resets at " + resetTime(*w.ResetsAt)
}

// ofWindow is " of the five_hour window" (with prep "of"), or "" for a
// window the CLI did not name (the call's line already said so once).
func ofWindow(prep string, w UsageWindow) string {
	if !w.Named() {
		return ""
	}
	return " " + prep + " the " + w.Window + " window"
}

// windowWords names a usage window: "the five_hour window", or "a window
// the CLI did not name".
func windowWords(w UsageWindow) string {
	if !w.Named() {
		return "a window the CLI did not name"
	}
	return "the " + w.Window + " window"
}

// percent words a percentage without trailing zeros (92, 92.5).
func percent(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// said quotes the agent's own line after a cause: " — it said: ...".
func said(line string) string {
	if line == "" {
		return ""
	}
	return " — it said: " + line
}

// waitLabels name each wait's countdown.
var waitLabels = map[string]string{
	"loop_delay":      "Next loop in",
	"idle_backoff":    "Idle; next iteration in",
	"failure_backoff": "Retrying in",
	"outage_backoff":  "Provider outage; next try in",
	"rate_limit":      "Time until reset",
	"usage_limit":     "Time until retry",
	"question":        "Waiting for your answer (ralph_loop --answer); time left",
	"usage_soft":      "Usage window resets in",
}

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

// clock renders d as HH:MM:SS, rounded to the nearest second (a wait
// shorter than half a second shows 00:00:00).
func clock(d time.Duration) string {
	s := int(d.Round(time.Second).Seconds())
	return fmt.Sprintf("%02d:%02d:%02d", s/3600, s%3600/60, s%60)
}

// roundWait rounds a wait for a person: to the second under ten minutes
// (a wait of 1m27s is not "1m0s"), to the minute above.
func roundWait(d time.Duration) time.Duration {
	if d < 10*time.Minute {
		return d.Round(time.Second)
	}
	return d.Round(time.Minute)
}

// outageLimit says when an outage stops the run.
func outageLimit(max time.Duration) string {
	if max <= 0 {
		return "no OUTAGE_MAX: waiting as long as it takes"
	}
	return "stops at OUTAGE_MAX=" + max.String()
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

// printable is s, which the agent chose, without control characters
// (escape sequences included) or line breaks.
func printable(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsPrint(r) {
			return r
		}
		return -1
	}, s)
}

// ByteSize is n bytes for a person: 512 B, 12.3 KB, 4.0 MB (powers of 1024).
func ByteSize(n int64) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%d B", n)
	case n < 1024*1024:
		return fmt.Sprintf("%.1f KB", float64(n)/1024)
	}
	return fmt.Sprintf("%.1f MB", float64(n)/(1024*1024))
}

// The bash loop's lines about the hourly call window, word for word.

// callWindowReset is logged (SUCCESS) when the wait for the next hour is
// over.
const callWindowReset = "Rate limit reset! Ready for new calls."

// newHourLine is logged (INFO) when the count starts a new hour.
func newHourLine(hour string) string {
	// hour is the window's key, YYYYMMDDHH: say the hour, not the key.
	if len(hour) == 10 {
		return "Call counter reset for new hour: " + hour[8:] + ":00"
	}
	return "Call counter reset for new hour"
}

// limitReachedLine is logged (WARN) when the limit blocks a call.
func limitReachedLine(count, max int) string {
	return fmt.Sprintf("Rate limit reached (%d/%d). Waiting for reset...", count, max)
}

// sleepingLine is logged (INFO) before the wait until the next hour, shown
// in whole seconds rounded up.
func sleepingLine(wait time.Duration) string {
	secs := int64((wait + time.Second - 1) / time.Second)
	if wait <= 0 {
		secs = 0
	}
	return fmt.Sprintf("Sleeping for %d seconds until next hour...", secs)
}
