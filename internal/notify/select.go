package notify

import (
	"slices"
	"strings"

	"github.com/ralphloop/ralph_loop/internal/events"
)

// Names that select more than one type of event, or a part of one.
const (
	// all selects every event written to events.jsonl.
	all = "all"
	// breakerOpened selects breaker_changed events whose new state is OPEN.
	breakerOpened = "breaker_opened"
	// guardGaveUp selects the run_finished event of a run the failure
	// guard ended: too many failed calls in a row.
	guardGaveUp = "guard_gave_up"
)

// Unknown lists the names of NOTIFY_ON that match no event type a run
// emits today, sorted.
func Unknown(names []string) []string { return pick(names).unknown() }

// selection is a set of names from NOTIFY_ON.
type selection struct {
	names map[string]bool
}

// pick builds a selection from names (blanks trimmed, empty ones
// dropped).
func pick(names []string) selection {
	s := selection{names: map[string]bool{}}
	for _, n := range names {
		if n = strings.TrimSpace(n); n != "" {
			s.names[n] = true
		}
	}
	return s
}

// empty reports whether nothing is selected.
func (s selection) empty() bool { return len(s.names) == 0 }

// unknown lists the selected names that match no event type a run emits
// today, sorted.
func (s selection) unknown() []string {
	var out []string
	for n := range s.names {
		if !known(n) {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}

// known reports whether name selects an event a run emits today.
func known(name string) bool {
	switch name {
	case all, breakerOpened, guardGaveUp:
		return true
	}
	return slices.Contains(events.Types, events.Type(name))
}

// match returns the selected name that picks e, the narrowest one when
// several do (guard_gave_up before run_finished), or "" when e is not
// selected. iteration_progress, which is never written to the event log,
// is never selected.
func (s selection) match(e events.Event) string {
	if e.Type == events.IterationProgress {
		return ""
	}
	switch {
	case s.names[breakerOpened] && e.Type == events.BreakerChanged && e.To == "OPEN":
		return breakerOpened
	case s.names[guardGaveUp] && e.Type == events.RunFinished && gaveUp(e):
		return guardGaveUp
	case s.names[string(e.Type)]:
		return string(e.Type)
	case s.names[all]:
		return all
	}
	return ""
}

// gaveUp reports whether run_finished e ends a run the failure guard gave
// up on.
func gaveUp(e events.Event) bool {
	if e.Stop != nil {
		switch e.Stop.Kind {
		case events.StopGaveUp, events.StopNotStored, events.StopPermanent, events.StopOutage:
			return true
		}
		return false
	}
	switch e.Reason {
	case "consecutive_failures", "disk_full", "write_failed", "permanent_failure", "provider_outage":
		return true
	}
	return false
}
