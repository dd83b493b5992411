package console

import "github.com/ralphloop/ralph_loop/internal/events"

// driverSwitched words a switch between the main driver and
// FALLBACK_DRIVER.
func driverSwitched(s events.DriverSwitch) []part {
	switch {
	case s.Why == events.SwitchReset:
		return []part{line(success, "🔁 %s's usage limit has reset: back to %s (from %s)", s.To, s.To, s.From)}
	case s.Until.IsZero():
		return []part{line(events.Warn, "🔁 %s is at its usage limit: going on with %s", s.From, s.To)}
	}
	return []part{line(events.Warn, "🔁 %s is at its usage limit: going on with %s until %s, then back to %s",
		s.From, s.To, s.Until.Local().Format("2006-01-02 15:04:05"), s.From)}
}
