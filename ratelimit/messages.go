package ratelimit

import (
	"fmt"
	"time"
)

// The bash loop's log lines and countdown text, word for word.

// ResetMessage is logged (SUCCESS) when the wait for the next hour is over.
const ResetMessage = "Rate limit reset! Ready for new calls."

// NewHourMessage is logged (INFO) when Refresh starts a new hour.
func NewHourMessage(hour string) string {
	return "Call counter reset for new hour: " + hour
}

// ReachedMessage is logged (WARN) when the limit blocks a call.
func ReachedMessage(count, max int) string {
	return fmt.Sprintf("Rate limit reached (%d/%d). Waiting for reset...", count, max)
}

// SleepingMessage is logged (INFO) before the wait; wait is Until(now),
// shown in whole seconds rounded up.
func SleepingMessage(wait time.Duration) string {
	secs := int64((wait + time.Second - 1) / time.Second)
	if wait <= 0 {
		secs = 0
	}
	return fmt.Sprintf("Sleeping for %d seconds until next hour...", secs)
}
