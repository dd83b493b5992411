package quota

import (
	"strconv"
	"time"
)

// Verdict is the governor's answer before a call: go (Kind 0), wait for
// Reading's window to reset (Soft) or stop the run (Hard), by Rule.
type Verdict struct {
	Kind    Kind
	Rule    Rule
	Reading Reading
}

// Decide is the verdict on the readings under policy p: a window whose
// use reached a hard threshold stops the run (the first such window);
// otherwise, of the windows that reached a soft one, the call waits for
// the one that resets last (a reset not known counts as the earliest), so
// that one wait covers them all. A window of unknown use decides nothing.
func Decide(p Policy, rs []Reading) Verdict {
	var soft Verdict
	for _, r := range rs {
		if r.Used == nil {
			continue
		}
		named := false // the lowest soft threshold reached names the wait
		for _, rule := range p.For(r.Window) {
			if *r.Used < rule.Percent {
				continue
			}
			if rule.Kind == Hard {
				return Verdict{Kind: Hard, Rule: rule, Reading: r}
			}
			if !named && (soft.Kind == 0 || later(r.ResetsAt, soft.Reading.ResetsAt)) {
				soft = Verdict{Kind: Soft, Rule: rule, Reading: r}
			}
			named = true
		}
	}
	return soft
}

// later: reset a is after reset b (nil: not known, before any).
func later(a, b *time.Time) bool {
	return a != nil && (b == nil || a.After(*b))
}

// Crossing is a threshold a window's projection reaches before the window
// resets: Rule (a rule of the policy, or the window's end, Percent 100 of
// Kind 0), reached At.
type Crossing struct {
	Rule Rule
	At   time.Time
}

// Key names the crossing within its window's period, for Book.Claim.
func (c Crossing) Key(r Reading) string {
	reset := "?"
	if r.ResetsAt != nil {
		reset = strconv.FormatInt(r.ResetsAt.Unix()/60, 10) // minutes: a guessed reset moves by seconds
	}
	return reset + ":" + c.Rule.Kind.String() + ":" + Percent(c.Rule.Percent)
}

// Crossing is the lowest threshold of p on r's window (or its end, 100%)
// that r's use has not reached and that the projection reaches before the
// window resets; false when there is none (no projection, no reset known,
// or the reset comes first).
func (r Reading) Crossing(p Policy) (Crossing, bool) {
	if r.Used == nil || r.PerHour <= 0 || r.ResetsAt == nil {
		return Crossing{}, false
	}
	rules := append(p.For(r.Window), Rule{Window: r.Window, Percent: 100})
	for _, rule := range rules {
		if *r.Used >= rule.Percent {
			continue
		}
		hours := (rule.Percent - *r.Used) / r.PerHour
		at := r.At.Add(time.Duration(hours * float64(time.Hour)))
		if at.Before(*r.ResetsAt) {
			return Crossing{Rule: rule, At: at}, true
		}
		return Crossing{}, false // a higher threshold comes later still
	}
	return Crossing{}, false
}
