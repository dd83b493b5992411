package events

import (
	"testing"
	"time"
)

func TestCallWindowLines(t *testing.T) {
	tests := []struct{ got, want string }{
		{limitReachedLine(3, 3), "Rate limit reached (3/3). Waiting for reset..."},
		{limitReachedLine(2, 2), "Rate limit reached (2/2). Waiting for reset..."},
		{newHourLine("2026112202"), "Call counter reset for new hour: 02:00"},
		{sleepingLine(time.Hour), "Sleeping for 3600 seconds until next hour..."},
		{sleepingLine(51*time.Minute + 51*time.Second), "Sleeping for 3111 seconds until next hour..."},
		{sleepingLine(2 * time.Second), "Sleeping for 2 seconds until next hour..."},
		{sleepingLine(1500 * time.Millisecond), "Sleeping for 2 seconds until next hour..."},
		{sleepingLine(0), "Sleeping for 0 seconds until next hour..."},
		{sleepingLine(-time.Second), "Sleeping for 0 seconds until next hour..."},
		{callWindowReset, "Rate limit reset! Ready for new calls."},
	}
	for _, tc := range tests {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}
