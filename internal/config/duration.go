package config

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// durationUnits in match order: "ms" must be tried before "m".
var durationUnits = []struct {
	suffix string
	unit   time.Duration
}{
	{"ms", time.Millisecond},
	{"s", time.Second},
	{"m", time.Minute},
	{"h", time.Hour},
	{"d", 24 * time.Hour},
}

// parseDuration reads a non-negative duration as written in .ralphrc, the
// environment or a flag: a plain number of seconds ("30", "2.5"), or one or
// more number+unit pairs with the units ms, s, m, h and d ("30s", "5m", "6h",
// "1d", "1h30m", "1.5h"). Surrounding blanks are ignored. Negative values,
// other units and values beyond about 292 years are errors.
func parseDuration(s string) (time.Duration, error) {
	in := strings.TrimSpace(s)
	if in == "" {
		return 0, fmt.Errorf("empty duration")
	}
	if isDecimal(in) {
		f, err := strconv.ParseFloat(in, 64)
		if err != nil {
			return 0, fmt.Errorf("invalid duration %q", s)
		}
		return toDuration(f*float64(time.Second), s)
	}
	var total float64
	rest := in
	for rest != "" {
		n := numberPrefix(rest)
		if n == 0 {
			return 0, fmt.Errorf("invalid duration %q: expected a number at %q", s, rest)
		}
		f, err := strconv.ParseFloat(rest[:n], 64)
		if err != nil {
			return 0, fmt.Errorf("invalid duration %q", s)
		}
		rest = rest[n:]
		matched := false
		for _, u := range durationUnits {
			if strings.HasPrefix(rest, u.suffix) {
				total += f * float64(u.unit)
				rest = rest[len(u.suffix):]
				matched = true
				break
			}
		}
		if !matched {
			return 0, fmt.Errorf("invalid duration %q: unknown unit (use ms, s, m, h or d)", s)
		}
	}
	return toDuration(total, s)
}

func toDuration(ns float64, orig string) (time.Duration, error) {
	if math.IsNaN(ns) || math.IsInf(ns, 0) || ns >= math.MaxInt64 {
		return 0, fmt.Errorf("duration %q is too large", orig)
	}
	return time.Duration(math.Round(ns)), nil
}

// numberPrefix returns the length of the leading unsigned decimal number
// ("12", "1.5", ".5") of s, or 0.
func numberPrefix(s string) int {
	i, digits, dot := 0, 0, false
	for i < len(s) {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			digits++
		case c == '.' && !dot:
			dot = true
		default:
			if digits == 0 {
				return 0
			}
			return i
		}
		i++
	}
	if digits == 0 {
		return 0
	}
	return i
}

// isDecimal reports whether s is an unsigned decimal number with at most one
// dot and at least one digit, nothing else (no sign, exponent or hex form).
func isDecimal(s string) bool {
	return s != "" && numberPrefix(s) == len(s)
}
