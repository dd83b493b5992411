package analysis

import (
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/ralphloop/ralph_loop/internal/lazyre"
)

// LimitWindow is what one agent call said about one of the provider's
// usage windows: Claude's five_hour and seven_day (rate_limit_event),
// Codex's primary and secondary (rate-limit snapshot), or a window named
// in an error text.
type LimitWindow struct {
	Window        string   // five_hour, seven_day, seven_day_opus, primary, secondary, ...; "" when not said
	Status        string   // LimitAllowed, "allowed_warning" (near the limit) or LimitRejected
	UsedPercent   *float64 // 0..100, nil when not said
	ResetsAt      int64    // unix seconds, 0 when not said
	WindowMinutes int      // the window's length, 0 when not said

	resetIn int64 // seconds from the end of the call (older Codex), -1 when not said
}

// Window statuses, Claude's words (Codex's snapshots are "allowed" below
// 100 % and "rejected" at it). A window near its limit is Result.Warning.
const (
	LimitAllowed  = "allowed"
	limitWarning  = "allowed_warning"
	LimitRejected = "rejected"
)

const maxWindows = 8 // the windows one output can name

// limits collects the usage windows the CLI reported in its own events,
// the last report of each window counting. A format gives each window its
// records report (FormatReader.Record).
type limits struct {
	windows []LimitWindow
}

// put records window w; resetIn is its reset time in seconds from the end
// of the call when only that is known (older Codex), else -1.
func (a *limits) put(w LimitWindow, resetIn int64) {
	w.resetIn = resetIn
	for i := range a.windows {
		if a.windows[i].Window == w.Window {
			a.windows[i] = w
			return
		}
	}
	if len(a.windows) < maxWindows {
		a.windows = append(a.windows, w)
	}
}

// windows are the reported windows, relative reset times resolved at now.
func (a *limits) resolved(now time.Time) []LimitWindow {
	if len(a.windows) == 0 {
		return nil
	}
	out := make([]LimitWindow, len(a.windows))
	for i, w := range a.windows {
		if w.resetIn >= 0 && !now.IsZero() {
			w.ResetsAt = now.Unix() + w.resetIn
		}
		w.resetIn = -1
		out[i] = w
	}
	return out
}

// The reset time and the window as a limit message words them:
//
//	Claude AI usage limit reached|1750000000          (older Claude Code)
//	5-hour limit reached ∙ resets 2am                  (Claude Code)
//	You've hit your limit · resets 5pm (Europe/Paris)  (Claude Code)
//	..."resets_at":1757000000,"resets_in_seconds":3600 (Codex's error body)
//	...or try again at 3:15 PM.                        (Codex)
//	try again in 2 hours                               (any)
var (
	resetEpoch    = lazyre.Compile(`(?i)limit reached\|(\d{9,11})\b`)
	resetAtJSON   = lazyre.Compile(`"resets_at"\s*:\s*(\d{9,11})`)
	resetInJSON   = lazyre.Compile(`"resets_in_seconds"\s*:\s*(\d{1,9})`)
	resetClock    = lazyre.Compile(`(?i)(?:resets(?: at)?|try again at)\s+(\d{1,2})(?::(\d{2}))?\s*([ap]\.?m\.?)?(?:\s*\(([A-Za-z_]+(?:/[A-Za-z_+-]+)*)\))?`)
	resetIn       = lazyre.Compile(`(?i)(?:resets|try again) in (\d{1,4})\s*(d|days?|h|hours?|m|min|mins|minutes?)\b`)
	windowFiveH   = lazyre.Compile(`(?i)5.?hour|five.?hour|session limit`)
	windowWeekly  = lazyre.Compile(`(?i)weekly|7.?day|seven.?day`)
	windowOpusWk  = lazyre.Compile(`(?i)opus.*(weekly|7.?day)|(weekly|7.?day).*opus`)
	windowSonetWk = lazyre.Compile(`(?i)sonnet.*(weekly|7.?day)|(weekly|7.?day).*sonnet`)
)

// windowFromText names the window a limit message speaks of, "" when none.
func windowFromText(s string) string {
	switch {
	case windowOpusWk().MatchString(s):
		return "seven_day_opus"
	case windowSonetWk().MatchString(s):
		return "seven_day_sonnet"
	case windowWeekly().MatchString(s):
		return "seven_day"
	case windowFiveH().MatchString(s):
		return "five_hour"
	}
	return ""
}

// resetFromText is the reset time a limit message gives, in unix seconds,
// 0 when it gives none. A clock time ("resets 2am") is its next
// occurrence after now, in the zone named in brackets or else now's zone;
// without now, only absolute times count.
func resetFromText(s string, now time.Time) int64 {
	for _, re := range []func() *regexp.Regexp{resetEpoch, resetAtJSON} {
		if m := re().FindStringSubmatch(s); m != nil {
			n, _ := strconv.ParseInt(m[1], 10, 64)
			return n
		}
	}
	if now.IsZero() {
		return 0
	}
	if m := resetInJSON().FindStringSubmatch(s); m != nil {
		n, _ := strconv.ParseInt(m[1], 10, 64)
		return now.Unix() + n
	}
	if m := resetIn().FindStringSubmatch(s); m != nil {
		n, _ := strconv.Atoi(m[1])
		unit := time.Minute
		switch strings.ToLower(m[2])[0] {
		case 'd':
			unit = 24 * time.Hour
		case 'h':
			unit = time.Hour
		}
		return now.Add(time.Duration(n) * unit).Unix()
	}
	if m := resetClock().FindStringSubmatch(s); m != nil {
		return nextClock(m, now)
	}
	return 0
}

// nextClock is the next time after now at the clock time of a resetClock
// match (hour, minute, am/pm, zone).
func nextClock(m []string, now time.Time) int64 {
	h, _ := strconv.Atoi(m[1])
	mins, _ := strconv.Atoi(m[2])
	ampm := strings.ToLower(strings.ReplaceAll(m[3], ".", ""))
	switch {
	case ampm == "" && m[2] == "":
		return 0 // a bare number is no clock time
	case ampm != "" && (h < 1 || h > 12):
		return 0
	case ampm == "pm" && h != 12:
		h += 12
	case ampm == "am" && h == 12:
		h = 0
	}
	if h > 23 || mins > 59 {
		return 0
	}
	loc := now.Location()
	if m[4] != "" {
		if l, err := time.LoadLocation(m[4]); err == nil {
			loc = l
		}
	}
	n := now.In(loc)
	t := time.Date(n.Year(), n.Month(), n.Day(), h, mins, 0, 0, loc)
	if !t.After(n) {
		t = t.AddDate(0, 0, 1)
	}
	return t.Unix()
}

// Limit reports the window the call was limited in: the rejected window
// of the CLI's own report, else the window the limit message named.
func (r *Result) Limit() LimitWindow {
	for _, w := range r.UsageWindows {
		if w.Status == LimitRejected {
			return w
		}
	}
	return LimitWindow{Window: r.UsageLimitWindow, Status: LimitRejected, ResetsAt: r.UsageLimitResetsAt}
}

// Warning is the first window the CLI said is near its limit
// (allowed_warning), and whether there is one.
func (r *Result) Warning() (LimitWindow, bool) {
	for _, w := range r.UsageWindows {
		if w.Status == limitWarning {
			return w, true
		}
	}
	return LimitWindow{}, false
}
