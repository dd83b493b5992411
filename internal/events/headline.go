package events

import (
	"fmt"
	"strings"
	"time"

	"github.com/ralphloop/ralph_loop/internal/safetext"
)

// Headline is the event in one line for a person, in the words the
// console uses for it: the text a notifier sends (a chat message, a
// desktop notice) and the dashboard's timeline line. A run that stopped
// early says why in Stop.Sentence's words (the event's message); any
// event type without words of its own is named as it is, with the loop
// number.
func (e Event) Headline() string {
	switch e.Type {
	case RunFinished:
		return finishedHeadline(e)
	case BreakerChanged:
		if e.To == "OPEN" {
			return fmt.Sprintf("Circuit breaker has opened - execution halted (%s)", e.Reason)
		}
		return "Circuit breaker: " + BreakerMove(e.From, e.To, e.Reason)
	case UsageLimited:
		return "Usage limit reached; waiting" + until(e) + reasonSuffix(e.Reason)
	case RateLimited:
		return fmt.Sprintf("Call limit reached (%d calls per hour); waiting", e.MaxCalls) + until(e)
	case RunStarted:
		return fmt.Sprintf("Ralph loop starting (%s)", e.Driver)
	case Paused:
		return "Paused (ralph_loop --resume to go on)"
	case Resumed:
		return "Resumed"
	case IterationCompleted, IterationIdle:
		return fmt.Sprintf("Loop #%d done; tasks %d/%d", e.Loop, e.TasksCompleted, e.TasksTotal)
	case IterationFailed, IterationTimedOut:
		h := fmt.Sprintf("Loop #%d failed", e.Loop)
		reason, code := e.Reason, e.DriverExitCode
		if it := e.Iteration; it != nil { // a call's failure: what it came to (api_limit: "usage limit")
			if reason == "" {
				reason = strings.ReplaceAll(strings.Replace(it.Outcome, "api_limit", "usage_limit", 1), "_", " ")
			}
			if code == nil {
				code = it.DriverExitCode
			}
		}
		if reason != "" {
			h += ": " + reason
		}
		if e.Type == IterationFailed && code != nil && *code > 0 && !strings.Contains(reason, "exit") {
			h += fmt.Sprintf(" (code %d)", *code)
		}
		if e.StderrTail != "" {
			// The agent's words, as the console showed them: made safe.
			h += "; stderr: " + safetext.Line(e.StderrTail)
		}
		return h
	case IterationStarted:
		return fmt.Sprintf("Starting Loop #%d", e.Loop)
	case DelayStarted:
		if w := waitWords(e.Wait, time.Duration(e.DelaySecs*float64(time.Second))); w != "" {
			return w
		}
	case DelayEnded:
		if e.Skipped {
			return "Wait skipped (Ctrl+C)"
		}
	case UsageUpdated:
		return usageHeadline(e.UsageLimits)
	case UsageProjected:
		if e.Projection != nil {
			return "Usage: " + UsageProjection(*e.Projection, e.TS)
		}
	case TaskImported, TaskClaimed, TaskTaken, TaskClosed, TaskReleased, TrackerError:
		return taskHeadline(e)
	case DriverSwitched:
		return fmt.Sprintf("Agent switched: %s → %s (%s)", e.From, e.To, strings.ReplaceAll(e.Why, "_", " ")) + until(e)
	case QuestionAsked, QuestionAnswered, QuestionUnanswered:
		if h := questionHeadline(e); h != "" {
			return h
		}
	}
	return fmt.Sprintf("%s (loop #%d)", strings.ReplaceAll(string(e.Type), "_", " "), e.Loop)
}

// finishedHeadline: the project done, or why the run stopped.
func finishedHeadline(e Event) string {
	loops := "loops"
	if e.Loop == 1 {
		loops = "loop"
	}
	stats := fmt.Sprintf("%d %s, tasks %d/%d", e.Loop, loops, e.TasksCompleted, e.TasksTotal)
	code := 0
	if e.ExitCode != nil {
		code = *e.ExitCode
	}
	switch {
	case e.Message != "":
		return fmt.Sprintf("Ralph stopped: %s (exit %d; %s)", e.Message, code, stats)
	case code == 0:
		return fmt.Sprintf("Ralph has completed the project (%s; %s)", e.Reason, stats) + failingGates(e.QualityGates)
	}
	return fmt.Sprintf("Ralph stopped: %s (exit %d; %s)", e.Reason, code, stats)
}

// failingGates: a completion's quality gates that fail (warn mode let
// them through), named; "" when none fails.
func failingGates(g *Gates) string {
	if g == nil || g.OverallStatus != "fail" {
		return ""
	}
	names := make([]string, len(g.Failing))
	for i, c := range g.Failing {
		names[i] = "`" + flat(c) + "`"
	}
	return fmt.Sprintf(" but quality gates FAIL (QUALITY_GATE_MODE=%s): %s", g.Mode, strings.Join(names, ", "))
}

func until(e Event) string {
	if e.Until == nil {
		return ""
	}
	return " until " + e.Until.Local().Format("15:04:05")
}

func reasonSuffix(r string) string {
	if r == "" {
		return ""
	}
	return ": " + r
}

// usageHeadline: each known usage window (usageWindowLine).
func usageHeadline(ws []UsageWindow) string {
	parts := make([]string, 0, len(ws))
	for _, w := range ws {
		parts = append(parts, usageWindowLine(w))
	}
	if len(parts) == 0 {
		return "Usage updated"
	}
	return "Usage: " + strings.Join(parts, "; ")
}
