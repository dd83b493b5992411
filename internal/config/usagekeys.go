package config

import (
	"fmt"
	"regexp"
	"strings"
)

// usageKeys are the keys of the provider's usage limits
// (docs/USAGE-LIMITS.md), validated after the others.
var usageKeys = []*keySpec{
	{name: "USAGE_LIMIT_PATTERNS", env: []string{"USAGE_LIMIT_PATTERNS"}, rc: true, def: "",
		accepts: "';'-separated regular expressions (RE2)", doc: "more phrases of a usage limit, looked for in the agent's own text of a failed call and in the CLI's errors",
		set: setLimitPatterns},
	{name: "USAGE_STOP_PERCENT", env: []string{"USAGE_STOP_PERCENT"}, rc: true, def: "0",
		accepts: "number 0..100 (0 = off)", doc: "stop before the next call once a usage window's reported use reaches this percent",
		set: func(c *Config, v string) error {
			f, ok := parseFloat(v)
			if !ok || f > 100 {
				return reject("expected a number from 0 to 100 (percent, 0 = off)")
			}
			c.UsageStopPercent = f
			return nil
		}},
	{name: "USAGE_WARNING_ACTION", env: []string{"USAGE_WARNING_ACTION"}, rc: true, def: "continue",
		accepts: "continue, wait, stop", doc: "what a usage warning (Claude's allowed_warning) does: go on, wait for that window's reset, or stop",
		set: enumSetter("Valid actions", []string{"continue", "wait", "stop"}, func(c *Config) *string { return &c.UsageWarningAction })},
	{name: "USAGE_LIMIT_MAX_WAIT", env: []string{"USAGE_LIMIT_MAX_WAIT"}, rc: true, def: "6h",
		accepts: "duration (0 = no cap)", doc: "longest wait for a usage limit's reset; a later reset stops the run (exit 8)",
		set: durationSetter(func(c *Config) *int64 { return (*int64)(&c.UsageLimitMaxWait) })},
}

// setLimitPatterns compiles USAGE_LIMIT_PATTERNS, naming the first
// pattern that is not a regular expression.
func setLimitPatterns(c *Config, v string) error {
	var out []*regexp.Regexp
	for i, p := range splitList(v, ";") {
		re, err := regexp.Compile(p)
		if err != nil {
			return reject(fmt.Sprintf("expected ';'-separated regular expressions: pattern %d (%s): %s", i+1, strings.TrimSpace(p), regexpReason(err)))
		}
		out = append(out, re)
	}
	c.UsageLimitPatterns = out
	return nil
}
