package console

import "github.com/ralphloop/ralph_loop/internal/events"

// startNotices renders what stops a run before it starts.
func startNotices(n events.Notice) []part {
	if n, ok := n.(events.BreakerOpenAtStart); ok {
		p := []part{line(events.Error, "🛑 Not starting: %s", StopLine(n.Stop))}
		if n.Next != "" {
			p = append(p, line(events.Info, "%s", n.Next))
		}
		return p
	}
	return nil
}
