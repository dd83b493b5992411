package engine

import (
	"bufio"
	"fmt"
	"strings"
	"time"

	"github.com/ralphloop/ralph_loop/analysis"
	"github.com/ralphloop/ralph_loop/events"
)

// usageLimit handles the provider's usage limit (loop.md §5.4 as
// intended): ask on a terminal, otherwise wait; an unattended run never
// exits on it. The failure guard does not count it: waiting it out is the
// remedy.
func (l *loop) usageLimit(c *call, res analysis.Result) step {
	l.bus.Errorf("🚫 Claude API 5-hour usage limit reached")
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
	l.bus.Warnf("🛑 Claude API 5-hour limit reached!")
	if l.deps.Interactive && l.deps.Stdin != nil && l.askExit() {
		l.bus.Infof("User chose to exit. Exiting loop...")
		return stopWith(Result{Code: ExitUsageLimit, Action: "api_limit_exit", Status: "stopped", Reason: "api_5hour_limit",
			Message: "stopped at the usage limit; run ralph_loop again once it has reset"})
	}
	l.bus.Infof("Waiting %s before retrying (until %s)...", wait.Round(time.Minute), until.Local().Format("15:04:05"))
	if _, err := l.wait("usage_limit", wait, "Time until retry"); err != nil {
		return stopWith(l.signalExit())
	}
	return goOn
}

// askExit shows the reference's prompt and reads one answer (30 s).
func (l *loop) askExit() bool {
	w := l.deps.Stdout
	fmt.Fprint(w, "\nThe Claude API 5-hour usage limit has been reached.\nYou can either:\n  1) Wait for the limit to reset (usually within an hour)\n  2) Exit the loop and try again later\n\nChoose an option (1 or 2): ")
	answer := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(l.deps.Stdin).ReadString('\n')
		answer <- strings.TrimSpace(line)
	}()
	select {
	case a := <-answer:
		return a == "2"
	case <-time.After(30 * time.Second):
		fmt.Fprintln(w)
		l.bus.Infof("No answer within 30 seconds: waiting for the limit to reset.")
		return false
	case <-l.ctx.Done():
		return false
	}
}
