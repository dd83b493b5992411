package quota

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/ralphloop/ralph_loop/internal/lazyre"
)

// Kind is what a threshold does once a window's use reaches it.
type Kind uint8

const (
	// Soft: no new call until the window resets.
	Soft Kind = iota + 1
	// Hard: stop the run.
	Hard
)

func (k Kind) String() string {
	switch k {
	case Soft:
		return "soft"
	case Hard:
		return "hard"
	}
	return "none"
}

// Every is the window of a rule that applies to every window.
const Every = "*"

// Where a rule comes from: the setting a person wrote.
const (
	FromLimits  = "USAGE_LIMITS"
	FromStop    = "USAGE_STOP_PERCENT"
	FromReserve = "USAGE_RESERVE_PERCENT"
)

// Rule is one threshold: once Window's use reaches Percent, Kind.
type Rule struct {
	Window  string  // a window as the CLI names it, or Every
	Kind    Kind    //
	Percent float64 // 0 < Percent <= 100
	From    string  // FromLimits, FromStop or FromReserve
}

// String is the rule as USAGE_LIMITS writes it: "five_hour:soft:85".
func (r Rule) String() string {
	return r.Window + ":" + r.Kind.String() + ":" + Percent(r.Percent)
}

// Setting is the rule as the person set it, for messages:
// "USAGE_LIMITS five_hour:soft:85", "USAGE_STOP_PERCENT=90",
// "USAGE_RESERVE_PERCENT=15".
func (r Rule) Setting() string {
	switch r.From {
	case FromStop:
		return FromStop + "=" + Percent(r.Percent)
	case FromReserve:
		return FromReserve + "=" + Percent(100-r.Percent)
	}
	return FromLimits + " " + r.String()
}

// Applies reports whether the rule is about window.
func (r Rule) Applies(window string) bool { return r.Window == Every || r.Window == window }

// Percent words a percentage as the person wrote it: 85, 85.5, 0.25.
func Percent(p float64) string { return strconv.FormatFloat(p, 'f', -1, 64) }

// KnownWindows are the windows the drivers read from the agent CLIs:
// Claude's rate_limit_event types and the words of its limit messages,
// Codex's primary (the shorter) and secondary (weekly) snapshot windows.
var KnownWindows = []string{"five_hour", "seven_day", "seven_day_opus", "seven_day_sonnet", "overage", "primary", "secondary"}

var (
	windowName = lazyre.Compile(`^[a-z][a-z0-9_]{0,39}$`)
	percentRe  = lazyre.Compile(`^([0-9]+(\.[0-9]*)?|\.[0-9]+)%?$`)
)

// MaxRules bounds USAGE_LIMITS.
const MaxRules = 32

// ParseLimits reads USAGE_LIMITS: comma-separated window:kind:percent
// entries ("five_hour:soft:85,seven_day:hard:75"); the window is a name as
// the CLI reports it or "*" for every window, kind is soft or hard, and the
// percent is above 0 and at most 100 (a trailing % is allowed). An empty
// value is no rule. Unknown lists the windows no CLI is known to report,
// which the caller warns of (they may be a typo, or a window newer than
// this program).
func ParseLimits(s string) (rules []Rule, unknown []string, err error) {
	for i, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		f := strings.Split(part, ":")
		if len(f) != 3 {
			return nil, nil, fmt.Errorf("entry %d (%s): expected window:kind:percent, such as five_hour:soft:85", i+1, part)
		}
		w, k, p := strings.TrimSpace(f[0]), strings.ToLower(strings.TrimSpace(f[1])), strings.TrimSpace(f[2])
		if w != Every && !windowName().MatchString(w) {
			return nil, nil, fmt.Errorf("entry %d (%s): the window must be * or a name such as five_hour, seven_day, primary, secondary", i+1, part)
		}
		r := Rule{Window: w, From: FromLimits}
		switch k {
		case "soft":
			r.Kind = Soft
		case "hard":
			r.Kind = Hard
		default:
			return nil, nil, fmt.Errorf("entry %d (%s): the kind must be soft (wait for the reset) or hard (stop)", i+1, part)
		}
		if !percentRe().MatchString(p) {
			return nil, nil, fmt.Errorf("entry %d (%s): the percent must be a number above 0 and at most 100", i+1, part)
		}
		r.Percent, _ = strconv.ParseFloat(strings.TrimSuffix(p, "%"), 64)
		if r.Percent <= 0 || r.Percent > 100 {
			return nil, nil, fmt.Errorf("entry %d (%s): the percent must be above 0 and at most 100", i+1, part)
		}
		if len(rules) == MaxRules {
			return nil, nil, fmt.Errorf("more than %d entries", MaxRules)
		}
		rules = append(rules, r)
		if w != Every && !slices.Contains(KnownWindows, w) && !slices.Contains(unknown, w) {
			unknown = append(unknown, w)
		}
	}
	return rules, unknown, nil
}

// Policy is the person's pacing: the thresholds of USAGE_LIMITS, the
// USAGE_STOP_PERCENT shorthand and the reserve.
type Policy struct {
	Limits  []Rule  // USAGE_LIMITS
	Stop    float64 // USAGE_STOP_PERCENT: *:hard:Stop; 0 = none
	Reserve float64 // USAGE_RESERVE_PERCENT: *:soft:(100-Reserve); 0 = none
}

// Rules are every threshold the policy sets, the shorthands written out:
// USAGE_STOP_PERCENT=N is *:hard:N and a reserve of R is *:soft:(100-R).
// Every rule applies on its own: a window is held by the lowest threshold
// it reaches, and a hard one reached stops the run even where a soft one
// was reached too.
func (p Policy) Rules() []Rule {
	out := slices.Clone(p.Limits)
	if p.Stop > 0 {
		out = append(out, Rule{Window: Every, Kind: Hard, Percent: p.Stop, From: FromStop})
	}
	if p.Reserve > 0 {
		out = append(out, Rule{Window: Every, Kind: Soft, Percent: 100 - p.Reserve, From: FromReserve})
	}
	return out
}

// For are the rules about window, lowest percent first (a hard one first
// at the same percent).
func (p Policy) For(window string) []Rule {
	var out []Rule
	for _, r := range p.Rules() {
		if r.Applies(window) {
			out = append(out, r)
		}
	}
	slices.SortStableFunc(out, func(a, b Rule) int {
		if a.Percent != b.Percent {
			if a.Percent < b.Percent {
				return -1
			}
			return 1
		}
		return int(b.Kind) - int(a.Kind)
	})
	return out
}
