package config

import (
	"strings"
	"testing"
	"time"
)

func TestParseDuration(t *testing.T) {
	good := []struct {
		in   string
		want time.Duration
	}{
		{"0", 0},
		{"30", 30 * time.Second},
		{" 30 ", 30 * time.Second},
		{"2.5", 2500 * time.Millisecond},
		{".5", 500 * time.Millisecond},
		{"30s", 30 * time.Second},
		{"5m", 5 * time.Minute},
		{"6h", 6 * time.Hour},
		{"1d", 24 * time.Hour},
		{"1.5h", 90 * time.Minute},
		{"1h30m", 90 * time.Minute},
		{"1d12h", 36 * time.Hour},
		{"250ms", 250 * time.Millisecond},
		{"1m30s", 90 * time.Second},
		{"0s", 0},
		{"106751d", 106751 * 24 * time.Hour},
	}
	for _, tc := range good {
		got, err := parseDuration(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("parseDuration(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
	bad := []struct{ in, msg string }{
		{"", "empty"},
		{"  ", "empty"},
		{"-5s", "expected a number"},
		{"-5", "expected a number"},
		{"+5", "expected a number"},
		{"5x", "unknown unit"},
		{"5 m", "unknown unit"},
		{"s", "expected a number"},
		{"1.2.3s", "unknown unit"},
		{"1e3", "unknown unit"},
		{"0x10", "unknown unit"},
		{"5m3", "unknown unit"},
		{"1w", "unknown unit"},
		{"NaN", "expected a number"},
		{"107000d", "too large"},
		{"99999999999999999999", "too large"},
		{".", "expected a number"},
	}
	for _, tc := range bad {
		got, err := parseDuration(tc.in)
		if err == nil {
			t.Errorf("parseDuration(%q) = %v, want error", tc.in, got)
			continue
		}
		if !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("parseDuration(%q) error %q lacks %q", tc.in, err, tc.msg)
		}
	}
}
