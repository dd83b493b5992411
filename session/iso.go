package session

import (
	"strings"
	"time"
)

// isoLayout is `date -u -Iseconds`: 2026-11-22T02:05:10+00:00.
const isoLayout = "2006-01-02T15:04:05-07:00"

// formatISO is t in UTC as the bash loop writes timestamps.
func formatISO(t time.Time) string { return t.UTC().Format(isoLayout) }

// parseISO reads the timestamps the bash loop and bmalph accept: RFC 3339
// with or without fractional seconds (Z or ±HH:MM), ±HHMM offsets, and
// YYYY-MM-DDTHH:MM:SS or YYYY-MM-DD without a zone (taken as UTC).
func parseISO(s string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	if s == "" || s == "null" {
		return time.Time{}, false
	}
	for _, layout := range []string{
		time.RFC3339Nano,
		"2006-01-02T15:04:05.999999999Z0700",
		"2006-01-02T15:04:05.999999999",
		"2006-01-02 15:04:05.999999999Z07:00",
		"2006-01-02 15:04:05.999999999",
		"2006-01-02",
	} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}
