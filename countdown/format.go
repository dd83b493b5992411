package countdown

import (
	"fmt"
	"time"
)

// ceilSeconds rounds d up to whole seconds; negative durations are 0.
func ceilSeconds(d time.Duration) int64 {
	if d <= 0 {
		return 0
	}
	return int64((d + time.Second - 1) / time.Second)
}

// HMS formats the time left as HH:MM:SS, rounding up to the second so a
// countdown never shows 00:00:00 while time is still left. Hours are not
// capped at 99.
func HMS(d time.Duration) string {
	s := ceilSeconds(d)
	return fmt.Sprintf("%02d:%02d:%02d", s/3600, s%3600/60, s%60)
}

// MS formats the time left as MM:SS (rounded up), with the minutes not capped
// at 59: a full hour is "60:00", as the reference's API-limit countdown shows.
func MS(d time.Duration) string {
	s := ceilSeconds(d)
	return fmt.Sprintf("%02d:%02d", s/60, s%60)
}
