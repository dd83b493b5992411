package events

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"time"

	"github.com/ralphloop/ralph_loop/internal/quota"
	"github.com/ralphloop/ralph_loop/internal/safetext"
)

// The usage governor's words (docs/USAGE-LIMITS.md): a window's reading,
// the machine's spend and its runs, the reserve, the projection. The wait
// line, the stop line, --status, the dashboard and the notifications all
// say them with these functions.

// used words a reading's use, rounded to a tenth: "86%", "86.4% (estimated)".
func used(r quota.Reading) string {
	if r.Used == nil {
		return "unknown"
	}
	s := tenth(*r.Used) + "%"
	if r.Estimated {
		s += " (estimated)"
	}
	return s
}

// tenth words a percentage to a tenth, without trailing zeros.
func tenth(p float64) string { return percent(math.Round(p*10) / 10) }

// UsageReading is one window of the governor for a person: its use and
// where it comes from, its reset, the machine's spend in it and the
// projection, at now:
//
//	five_hour 86.4% (estimated: 80% reported at 14:02, 3 calls since), resets 18:00; this machine: 12 calls, 1.2M tokens; at this rate used up at 17:20
func UsageReading(r quota.Reading, now time.Time) string {
	var b strings.Builder
	b.WriteString(r.Window + " " + used(r))
	switch {
	case r.Estimated && r.Reported != nil:
		b.WriteString(fmt.Sprintf(": %s%% reported at %s, %s since", tenth(*r.Reported), clockAt(*r.ReportedAt, now), calls(r.CallsSince)))
	case r.Estimated:
		b.WriteString(fmt.Sprintf(": %s since the reset", calls(r.CallsSince)))
	case r.Reported != nil && r.CallsSince > 0:
		b.WriteString(fmt.Sprintf(", as reported at %s (%s since, not yet learned what one uses)", clockAt(*r.ReportedAt, now), calls(r.CallsSince)))
	case r.Reported != nil:
		b.WriteString(" reported at " + clockAt(*r.ReportedAt, now))
	case r.Used == nil && r.CallsSince > 0:
		b.WriteString(fmt.Sprintf(" (%s since the reset, not yet learned what one uses)", calls(r.CallsSince)))
	}
	if r.ResetsAt != nil {
		b.WriteString(", resets " + clockAt(*r.ResetsAt, now))
		if r.ResetGuessed {
			b.WriteString(" (estimated)")
		}
	}
	fmt.Fprintf(&b, "; this machine: %s, %s tokens", calls(r.Calls), tokens(r.Tokens))
	if r.FullAt != nil {
		if r.ResetsAt != nil && !r.FullAt.Before(*r.ResetsAt) {
			fmt.Fprintf(&b, "; at this rate (%s%%/h) not used up before the reset", tenth(r.PerHour))
		} else {
			fmt.Fprintf(&b, "; at this rate (%s%%/h) used up at %s", tenth(r.PerHour), clockAt(*r.FullAt, now))
		}
	}
	return b.String()
}

// UsageRuns names the runs that spent a window, the most first:
// "~/work/app (pid 4242) 8 calls, 800k tokens; ~/work/api (pid 4250) 4 calls, 120k tokens".
// Folder names are the repository's: they are shown sanitised.
func UsageRuns(r quota.Reading, home string) string {
	parts := make([]string, 0, len(r.Runs))
	for _, run := range r.Runs {
		name := run.Project
		if name == "" {
			name = run.Run
		}
		if home != "" && (name == home || strings.HasPrefix(name, home+string(filepath.Separator))) {
			name = "~" + strings.TrimPrefix(name, home)
		}
		who := safetext.Line(name)
		if run.PID > 0 {
			who += fmt.Sprintf(" (pid %d)", run.PID)
		}
		parts = append(parts, fmt.Sprintf("%s %s, %s tokens", who, calls(run.Calls), tokens(run.Tokens)))
	}
	return strings.Join(parts, "; ")
}

// UsageReserve words the person's reserve: "15% of every window kept for
// you (the loops wait at 85%)"; "" for none.
func UsageReserve(reserve float64) string {
	if reserve <= 0 {
		return ""
	}
	return fmt.Sprintf("%s%% of every window kept for you (the loops wait for the reset at %s%%)", percent(reserve), percent(100-reserve))
}

// UsageProjection is a usage_projected event in words:
// "at this rate the five_hour window reaches 85% (USAGE_LIMITS five_hour:soft:85) at 16:40, before it resets at 18:00 (now 62.5%, estimated)".
func UsageProjection(p Projection, now time.Time) string {
	what := "100% (used up)"
	if p.Kind != "" {
		what = percent(p.Percent) + "% (" + p.Setting + ")"
	}
	at := tenth(p.UsedPercent) + "%"
	if p.Estimated {
		at += ", estimated"
	}
	reset := clockAt(p.ResetsAt, now)
	if p.ResetEstimated {
		reset += " (estimated)"
	}
	return fmt.Sprintf("at this rate (%s%%/h) the %s window reaches %s at %s, before it resets at %s (now %s)",
		tenth(p.PerHour), p.Window, what, clockAt(p.ReachesAt, now), reset, at)
}

// quotaHold is the governor's soft wait, for the console: what was
// reached, the reserve, the machine's spend and runs, the projection.
func (w Wait) quotaHold(now time.Time) []Line {
	h := w.Quota
	r := h.Reading
	p := []Line{logf(Warn, "⏸️  Usage of the %s window reached %s, %s: no new call until it resets (%s)",
		r.Window, used(r), h.Rule.Setting(), untilWords(w, now))}
	p = append(p, logf(Info, "  %s", UsageReading(r, now)))
	if runs := UsageRuns(r, ""); runs != "" {
		p = append(p, logf(Info, "  runs spending it: %s", runs))
	}
	if s := UsageReserve(h.Reserve); s != "" {
		p = append(p, logf(Info, "  reserve: %s", s))
	}
	return p
}

// untilWords is when a governor's wait ends.
func untilWords(w Wait, now time.Time) string {
	if w.Quota != nil && w.Quota.Reading.ResetsAt == nil {
		return "its reset time is not known: looking again at " + clockAt(w.Until, now)
	}
	return "until " + clockAt(w.Until, now)
}

// hardStop is StopUsageHard's line.
func hardStop(s Stop) string {
	h := s.Hold
	r := h.Reading
	reset := "its reset time is not known"
	if r.ResetsAt != nil {
		reset = "it resets at " + resetTime(*r.ResetsAt)
		if r.ResetGuessed {
			reset += " (estimated)"
		}
	}
	return fmt.Sprintf("usage of the %s window on this machine reached %s (%s); %s: run ralph_loop again after the reset",
		r.Window, used(r), h.Rule.Setting(), reset)
}

// softTooFar is StopUsageTooFar's line for the governor's soft wait: a
// reset past USAGE_LIMIT_MAX_WAIT is not waited for.
func softTooFar(s Stop) string {
	h := s.Hold
	r := h.Reading
	return fmt.Sprintf("usage of the %s window on this machine reached %s (%s), and %s, later than USAGE_LIMIT_MAX_WAIT=%s: run ralph_loop again after the reset (USAGE_LIMIT_MAX_WAIT=0 waits however long)",
		r.Window, used(r), h.Rule.Setting(), resetWords(s.Usage), s.MaxWait)
}

// clockAt is a time as a person near now reads it: "14:02" today,
// "Tue 03:00" within a week, else the date.
func clockAt(t, now time.Time) string {
	t, now = t.Local(), now.Local()
	switch {
	case t.YearDay() == now.YearDay() && t.Year() == now.Year():
		return t.Format("15:04")
	case t.Sub(now) < 6*24*time.Hour && now.Sub(t) < 6*24*time.Hour:
		return t.Format("Mon 15:04")
	}
	return t.Format("2006-01-02 15:04")
}

// calls words a count of calls.
func calls(n int64) string {
	if n == 1 {
		return "1 call"
	}
	return fmt.Sprintf("%d calls", n)
}

// tokens words a count of tokens: 950, 12.3k, 1.2M.
func tokens(n int64) string {
	switch {
	case n >= 1_000_000:
		return percent(math.Round(float64(n)/100_000)/10) + "M"
	case n >= 10_000:
		return percent(math.Round(float64(n)/1_000)) + "k"
	case n >= 1_000:
		return percent(math.Round(float64(n)/100)/10) + "k"
	}
	return fmt.Sprint(n)
}

// Lines: at this rate a usage window reaches a threshold before it
// resets (observe.Observer.UsageProjected).
func (p Projection) Lines(m Moment) []Line {
	return []Line{logf(Warn, "📈 Usage: %s", UsageProjection(p, m.TS))}
}
