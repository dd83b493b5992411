package ratelimit

import "time"

// hourLayout is the layout of the hour key: `date +%Y%m%d%H`.
const hourLayout = "2006010215"

// Window is the call count of one local clock hour.
type Window struct {
	Hour  string // HourKey of the hour the count belongs to; "" when unknown
	Count int    // completed agent calls in that hour
}

// HourKey is t's clock hour in t's own location as YYYYMMDDHH. Pass
// time.Now() (local time) for the bash loop's window.
func HourKey(t time.Time) string { return t.Format(hourLayout) }

// Fresh is an empty window for now's hour.
func Fresh(now time.Time) Window { return Window{Hour: HourKey(now)} }

// Roll returns the window that applies at now: w itself when it is for now's
// hour, else an empty window for now's hour, with rolled true. Any other
// key, an earlier or a later one, starts a new count, as the bash loop
// compares the keys for equality.
func (w Window) Roll(now time.Time) (_ Window, rolled bool) {
	if w.Hour == HourKey(now) {
		return w, false
	}
	return Fresh(now), true
}

// Allow reports whether one more call may start at now: the count of now's
// hour is below max. A max of 0 or less allows nothing, as the bash loop does.
func (w Window) Allow(now time.Time, max int) bool {
	r, _ := w.Roll(now)
	return r.Count < max
}

// Record counts one completed call at now, the time it ended. A call that
// started in one hour and ended in the next is counted in the next.
func (w Window) Record(now time.Time) Window {
	r, _ := w.Roll(now)
	r.Count++
	return r
}

// NextReset is the top of the local clock hour after now's, in now's
// location: the first moment whose HourKey differs from now's. It is built
// with time.Date, never by truncating (Truncate rounds in UTC, which is
// wrong in half-hour zones such as Asia/Kolkata). DST: when the next local
// hour does not exist (spring forward, 01:xx -> 03:00) the hour after it is
// taken; the hour that repeats in autumn has one key, and the result follows
// the key, as the bash loop's window does.
func NextReset(now time.Time) time.Time {
	for k := 1; k <= 3; k++ {
		// For a wall time inside a DST gap time.Date may pick either offset,
		// so 02:00 can come back as 01:00 standard time, before now.
		t := time.Date(now.Year(), now.Month(), now.Day(), now.Hour()+k, 0, 0, 0, now.Location())
		if t.After(now) {
			return t
		}
	}
	return now.Add(time.Hour) // no zone skips three hours; stay safe anyway
}

// NextResetClock is NextReset(now) as local HH:MM:SS, the status.json
// next_reset value (the bash loop writes now+1h instead).
func NextResetClock(now time.Time) string { return NextReset(now).Format("15:04:05") }
