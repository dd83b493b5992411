package console

import (
	"fmt"
	"time"
)

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
