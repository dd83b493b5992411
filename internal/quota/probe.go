package quota

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"time"
)

// ParseProbe reads what USAGE_PROBE_COMMAND printed: one JSON object
// telling the used percent of the account's windows, in one of these
// shapes (docs/USAGE-LIMITS.md):
//
//	{"windows": [{"window": "five_hour", "used_percent": 42, "resets_at": "2026-02-18T05:00:00Z", "window_minutes": 300}]}
//	{"five_hour": {"utilization": 42, "resets_at": "…"}, "seven_day": {…}}       Claude's usage endpoint
//	{"rate_limit": {"primary_window": {"used_percent": 3, "limit_window_seconds": 18000, "reset_at": 1767385852}, "secondary_window": {…}}}
//	{"rate_limits": {"primary": {"used_percent": 3, "window_minutes": 300, "resets_at": 1767385852}, "secondary": {…}}}
//
// resets_at is RFC 3339 or Unix seconds; a percent is 0..100. now turns
// "resets in N seconds" into a time.
func ParseProbe(out []byte, now time.Time) ([]Report, error) {
	out = bytes.TrimSpace(out)
	if len(out) == 0 {
		return nil, errors.New("it printed nothing")
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(out, &top); err != nil {
		return nil, fmt.Errorf("it did not print one JSON object: %v", err)
	}
	var rs []Report
	switch {
	case top["windows"] != nil:
		var list []map[string]json.RawMessage
		if err := json.Unmarshal(top["windows"], &list); err != nil {
			return nil, fmt.Errorf(`"windows" is not a list of objects: %v`, err)
		}
		for _, w := range list {
			var name string
			json.Unmarshal(w["window"], &name)
			if r, ok := probeWindow(name, w, now); ok {
				rs = append(rs, r)
			}
		}
	case top["rate_limit"] != nil || top["rate_limits"] != nil:
		var rl map[string]json.RawMessage
		if json.Unmarshal(top["rate_limit"], &rl) != nil {
			json.Unmarshal(top["rate_limits"], &rl)
		}
		for _, name := range []string{"primary", "secondary"} {
			raw := rl[name+"_window"]
			if raw == nil {
				raw = rl[name]
			}
			var w map[string]json.RawMessage
			if json.Unmarshal(raw, &w) == nil && w != nil {
				if r, ok := probeWindow(name, w, now); ok {
					rs = append(rs, r)
				}
			}
		}
	default:
		names := make([]string, 0, len(top))
		for n := range top {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			var w map[string]json.RawMessage
			if json.Unmarshal(top[n], &w) == nil && w != nil && windowName().MatchString(n) {
				if r, ok := probeWindow(n, w, now); ok {
					rs = append(rs, r)
				}
			}
		}
	}
	if len(rs) == 0 {
		return nil, errors.New(`it named no window with a used percent ("used_percent" or "utilization")`)
	}
	return rs, nil
}

// probeWindow is one window of a probe's report, if it says a used percent.
func probeWindow(name string, w map[string]json.RawMessage, now time.Time) (Report, bool) {
	if !windowName().MatchString(name) {
		return Report{}, false
	}
	used, ok := number(w["used_percent"])
	if !ok {
		used, ok = number(w["utilization"])
	}
	if !ok || used < 0 || used > 1000 {
		return Report{}, false
	}
	r := Report{Window: name, Used: new(clamp(used))}
	json.Unmarshal(w["status"], &r.Status)
	for _, k := range []string{"resets_at", "reset_at"} {
		if t, ok := when(w[k]); ok {
			r.ResetsAt = t
			break
		}
	}
	if r.ResetsAt.IsZero() {
		for _, k := range []string{"resets_in_seconds", "reset_after_seconds"} {
			if s, ok := number(w[k]); ok && s >= 0 && s < 1e9 {
				r.ResetsAt = now.Add(time.Duration(s) * time.Second)
				break
			}
		}
	}
	if m, ok := number(w["window_minutes"]); ok && m > 0 && m < 1e7 {
		r.Minutes = int(m)
	} else if s, ok := number(w["limit_window_seconds"]); ok && s >= 60 && s < 1e9 {
		r.Minutes = int(s / 60)
	}
	return r, true
}

// number is a JSON number (or a number in a string).
func number(raw json.RawMessage) (float64, bool) {
	if raw == nil || string(raw) == "null" {
		return 0, false
	}
	var f float64
	if json.Unmarshal(raw, &f) == nil && !math.IsNaN(f) && !math.IsInf(f, 0) {
		return f, true
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if f, err := strconv.ParseFloat(s, 64); err == nil && !math.IsNaN(f) && !math.IsInf(f, 0) {
			return f, true
		}
	}
	return 0, false
}

// when is a JSON time: RFC 3339 text or Unix seconds.
func when(raw json.RawMessage) (time.Time, bool) {
	if raw == nil || string(raw) == "null" {
		return time.Time{}, false
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
			return t.UTC(), true
		}
	}
	if n, ok := number(raw); ok && n > 1e9 && n < 1e11 {
		return time.Unix(int64(n), 0).UTC(), true
	}
	return time.Time{}, false
}
