package ratelimit

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
)

// ParseCount reads .call_count as the bash loop writes it: a non-negative
// integer (surrounding space ignored); empty is 0.
func ParseCount(b []byte) (int, error) {
	s := string(bytes.TrimSpace(b))
	if s == "" {
		return 0, nil
	}
	if !allDigits(s) {
		return 0, fmt.Errorf("call count %q is not a non-negative integer", clip(s))
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, errors.New("call count is out of range")
	}
	return n, nil
}

// ParseHour reads .last_reset: the hour key YYYYMMDDHH (hourLayout);
// empty is an unknown hour.
func ParseHour(b []byte) (string, error) {
	s := string(bytes.TrimSpace(b))
	if s == "" {
		return "", nil
	}
	if len(s) != len(hourLayout) || !allDigits(s) {
		return "", fmt.Errorf("hour %q is not YYYYMMDDHH", clip(s))
	}
	return s, nil
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}
