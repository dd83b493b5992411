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
	From, To             string
	FromDriver, ToDriver string
	Why                  string
	Until                time.Time // zero on a switch back
}
