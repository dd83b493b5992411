package config

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/ralphloop/ralph_loop/internal/clip"
	"github.com/ralphloop/ralph_loop/internal/quota"
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
	{name: "USAGE_LIMITS", env: []string{"USAGE_LIMITS"}, rc: true, def: "",
		accepts: "comma-separated window:soft|hard:percent (* = every window)", doc: "per usage window, the use at which the loops wait for its reset (soft) or stop (hard), from the machine's usage ledger",
		set: func(c *Config, v string) error {
			rules, _, err := quota.ParseLimits(v)
			if err != nil {
				return reject("expected comma-separated window:kind:percent, such as five_hour:soft:85,seven_day:hard:75: " + err.Error())
			}
			c.UsageLimits = rules
			return nil
		}},
	{name: "USAGE_RESERVE_PERCENT", env: []string{"USAGE_RESERVE_PERCENT"}, rc: true, def: "0",
		accepts: "number 0..99 (0 = none)", doc: "the share of every usage window the loops leave to you: they wait for the reset at 100 minus this",
		set: func(c *Config, v string) error {
			f, ok := parseFloat(v)
			if !ok || f >= 100 {
				return reject("expected a number from 0 to 99 (percent of every window kept for you, 0 = none)")
			}
			c.UsageReserve = f
			return nil
		}},
	{name: "USAGE_PROBE_COMMAND", env: []string{"USAGE_PROBE_COMMAND"}, rc: true, def: "",
		fromRepo: personOnly("USAGE_PROBE_COMMAND ignored: a project's .ralphrc cannot run a program of its choosing with your credentials; set USAGE_PROBE_COMMAND in your environment"),
		accepts:  "shell command (bash -c), yours only", doc: "prints your usage windows as JSON; run at most once a minute before a call (docs/USAGE-LIMITS.md)",
		set: func(c *Config, v string) error { c.UsageProbe = strings.TrimSpace(v); return nil }},
	{name: "RALPH_USAGE_LEDGER", env: []string{"RALPH_USAGE_LEDGER"}, def: "",
		accepts: "absolute file path (environment only)", doc: "the usage ledger's file, instead of usage-ledger.json in $XDG_STATE_HOME/ralph_loop/ (else ~/.local/state/ralph_loop/)",
		set: func(c *Config, v string) error {
			v = strings.TrimSpace(v)
			if v != "" && !filepath.IsAbs(v) {
				return reject("expected an absolute path (the ledger is one file for every project)")
			}
			c.UsageLedger = v
			return nil
		}},
}

// warnUsageLimits warns of the windows USAGE_LIMITS names that no agent
// CLI is known to report: a typo, or a window newer than this program.
func (l *loader) warnUsageLimits() {
	src := l.c.Sources["USAGE_LIMITS"]
	var named []string
	for _, r := range l.c.UsageLimits {
		if r.Window != quota.Every && !slices.Contains(quota.KnownWindows, r.Window) && !slices.Contains(named, r.Window) {
			named = append(named, r.Window)
		}
	}
	for _, w := range named {
		l.warns = append(l.warns, Warning{File: src.File, Line: src.Line, Msg: fmt.Sprintf(
			"USAGE_LIMITS names the window %s, which no agent CLI is known to report (%s); it applies only if one does",
			clip.Value(w), strings.Join(quota.KnownWindows, ", "))})
	}
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
