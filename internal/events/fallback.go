package events

import "time"

// DriverSwitched: the loop goes on with another agent CLI (FALLBACK_DRIVER).
// From and To are the driver names, Why is "usage_limit" (From hit its
// usage limit) or "reset" (the main driver's reset time has passed), and
// Until, on a switch to the fallback, is when the loop goes back to the
// main driver.
const DriverSwitched Type = "driver_switched"

// Why values of a driver_switched event.
const (
	SwitchUsageLimit = "usage_limit"
	SwitchReset      = "reset"
)

// DriverSwitch: the loop goes on with another agent CLI (the value of
// observe.Observer.DriverSwitched). From and To are display names
// ("Claude Code", "OpenAI Codex"), FromDriver and ToDriver the drivers'
// names.
type DriverSwitch struct {
	From       string
	To         string
	FromDriver string
	ToDriver   string
	Why        string
	Until      time.Time // zero on a switch back
}

// Lines word a switch between the main driver and FALLBACK_DRIVER.
func (s DriverSwitch) Lines(Moment) []Line {
	switch {
	case s.Why == SwitchReset:
		return []Line{logf(Success, "🔁 %s's usage limit has reset: back to %s (from %s)", s.To, s.To, s.From)}
	case s.Until.IsZero():
		return []Line{logf(Warn, "🔁 %s is at its usage limit: going on with %s", s.From, s.To)}
	}
	return []Line{logf(Warn, "🔁 %s is at its usage limit: going on with %s until %s, then back to %s",
		s.From, s.To, s.Until.Local().Format("2006-01-02 15:04:05"), s.From)}
}
