package console

import "github.com/ralphloop/ralph_loop/internal/events"

// startNotices renders what stops a run before it starts, or warns of it.
func startNotices(n events.Notice) []part {
	if n, ok := n.(events.EmptyPlan); ok {
		what := n.File + " lists no task (no '- [ ] …' line)"
		if n.Missing {
			what = "there is no " + n.File
		}
		return []part{line(events.Warn, "⚠️ %s: the agent has only the prompt to go on, and the run ends only when it says it is done (or the circuit breaker opens after a few calls without progress); add the tasks, one '- [ ] …' line each, and run again", what)}
	}
	if n, ok := n.(events.BreakerOpenAtStart); ok {
		p := []part{line(events.Error, "🛑 Not starting: %s", StopLine(n.Stop))}
		if n.Next != "" {
			p = append(p, line(events.Info, "%s", n.Next))
		}
		return p
	}
	return nil
}
