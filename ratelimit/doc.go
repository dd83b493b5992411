// Package ratelimit is the loop's count of agent calls per local clock
// hour and works out when the hour ends. It reads the shapes of
// .ralph/.call_count and .ralph/.last_reset, as ralph_loop.sh writes them
// (ParseCount, ParseHour); the state store (internal/store) reads and
// writes the files. It does no I/O.
//
// The window is the local clock hour, the key YYYYMMDDHH of `date
// +%Y%m%d%H`; a new key starts a new count at 0. Only calls that completed
// are counted. The top of the next hour is built with time.Date in the
// time's own location, so half-hour zones and DST days are right, and nothing
// here parses zero-padded clock fields as numbers (the bash loop's crash at
// minute or second 08/09; see docs/COMPATIBILITY.md).
//
// The engine's use, one iteration:
//
//	w, rolled := w.Roll(now)                          // at start-up w comes from the store
//	if rolled { keep(w) }                             // log "Call counter reset for new hour: ..."
//	if !w.Allow(now, max) {
//		next := ratelimit.NextReset(now)
//		log "Rate limit reached (n/max)..." and "Sleeping for s seconds..."
//		err = countdown.Wait(ctx, next, tick)         // tick gets the time left
//		keep(ratelimit.Fresh(time.Now())); log "Rate limit reset! ..."
//	}
//	... agent call succeeded ...
//	w = w.Record(time.Now()); keep(w)
//
// status.json's next_reset is NextResetClock(now).
//
// API:
//
//	type Window struct{ Hour string; Count int }
//	func HourKey(t time.Time) string
//	func Fresh(now time.Time) Window
//	func (w Window) Roll(now time.Time) (Window, bool)
//	func (w Window) Allow(now time.Time, max int) bool
//	func (w Window) Record(now time.Time) Window  // one completed call
//	func ParseCount(b []byte) (int, error)       // .call_count
//	func ParseHour(b []byte) (string, error)     // .last_reset
//	func NextReset(now time.Time) time.Time
//	func NextResetClock(now time.Time) string     // "HH:MM:SS"
//
// Package events words these happenings with the bash loop's lines.
package ratelimit
