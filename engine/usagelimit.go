package engine

import (
	"bufio"
	"strings"
	"time"

	"github.com/ralphloop/ralph_loop/analysis"
	"github.com/ralphloop/ralph_loop/events"
)

// usageLimit handles the provider's usage limit: ask on a terminal, otherwise wait; an unattended run never
// exits on it. The failure guard does not count it: waiting it out is the
// remedy.
func (l *loop) usageLimit(c *call, res analysis.Result) step {
	l.bus.Note(events.UsageLimitHit)
	it := l.iterationRecord(c, res, "api_limit")
	it.DriverExitCode = events.IntPtr(c.outcome.ExitCode)
	l.emit(events.Event{Type: events.IterationFailed, Iteration: it})
	wait := time.Hour
	if res.UsageLimitResetsAt > 0 {
		if until := time.Unix(res.UsageLimitResetsAt, 0); until.After(l.now()) {
			wait = until.Sub(l.now()) + 5*time.Second
		}
	}
	until := l.now().Add(wait)
	l.emit(events.Event{Type: events.UsageLimited, Action: "api_limit", Status: "paused", Wait: "usage_limit", Delay: wait, Until: &until, Reason: res.UsageLimitReason})
	l.bus.Note(events.UsageLimitReached)
	if l.deps.Interactive && l.deps.Stdin != nil && l.askExit() {
		l.bus.Note(events.UsageLimitExit)
		return stopWith(Result{Code: ExitUsageLimit, Action: "api_limit_exit", Status: "stopped", Reason: "api_5hour_limit",
			Stop: events.Stop{Kind: events.StopUsageLimit}})
	}
	l.bus.Note(events.UsageLimitWait{Wait: wait, Until: until})
	if _, err := l.wait("usage_limit", wait); err != nil {
		return stopWith(l.signalExit())
	}
	return goOn
}

// askExit shows the bash loop's prompt and reads one answer (30 s).
func (l *loop) askExit() bool {
	l.bus.Note(events.UsageLimitQuestion)
	answer := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(l.deps.Stdin).ReadString('\n')
		answer <- strings.TrimSpace(line)
	}()
	select {
	case a := <-answer:
		return a == "2"
	case <-time.After(30 * time.Second):
		l.bus.Note(events.UsageLimitNoAnswer)
		return false
	case <-l.ctx.Done():
		return false
	}
}
