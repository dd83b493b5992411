package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/ralphloop/ralph_loop/analysis"
	"github.com/ralphloop/ralph_loop/breaker"
	"github.com/ralphloop/ralph_loop/internal/console"
	"github.com/ralphloop/ralph_loop/internal/events"
	"github.com/ralphloop/ralph_loop/internal/fixplan"
	"github.com/ralphloop/ralph_loop/internal/ralphdir"
	"github.com/ralphloop/ralph_loop/ratelimit"
	"github.com/ralphloop/ralph_loop/session"
)

// statusView is what --status knows, read from .ralph/ without writing a
// byte there; --status --json prints it as one object. A file that is
// missing or cannot be read leaves its part null.
type statusView struct {
	State    stateView       `json:"state"`
	Status   json.RawMessage `json:"status"`   // status.json as the loop wrote it
	Progress *progressView   `json:"progress"` // never null
	Breaker  *breakerView    `json:"breaker"`
	Session  *sessionView    `json:"session"`
	Calls    callsView       `json:"calls"`
	Totals   *events.Usage   `json:"totals"`
	// Usage is status.json's usage_limits: the provider's usage windows as
	// last reported (absent until an agent CLI reported one).
	Usage []events.UsageWindow `json:"usage_limits,omitempty"`

	statusFound bool   // status.json exists, readable or not
	statusData  []byte // status.json as read, for --status to show
	statusErr   error  // why status.json could not be read
}

// stateView says what the loop is doing now.
type stateView struct {
	Phase      string     `json:"phase"` // running, paused, waiting, stopped, not_started
	Running    bool       `json:"running"`
	PID        int        `json:"pid,omitempty"`
	Paused     bool       `json:"paused"`
	WaitingFor string     `json:"waiting_for,omitempty"` // loop_delay, rate_limit, usage_limit, ...
	Until      *time.Time `json:"until,omitempty"`
	Reason     string     `json:"reason,omitempty"` // why it stopped
}

type progressView struct {
	Loop             int    `json:"loop"`
	CallRunning      bool   `json:"call_running"`
	CallElapsedSecs  *int64 `json:"call_elapsed_seconds"`
	Task             string `json:"task"`
	TasksCompleted   int    `json:"tasks_completed"`
	TasksTotal       int    `json:"tasks_total"`
	LastLoopSummary  string `json:"last_loop_summary"`
	LastLoopComplete int    `json:"last_loop_tasks_completed"`
}

type breakerView struct {
	State                        string `json:"state"`
	Reason                       string `json:"reason"`
	ConsecutiveNoProgress        int    `json:"consecutive_no_progress"`
	ConsecutiveSameError         int    `json:"consecutive_same_error"`
	ConsecutivePermissionDenials int    `json:"consecutive_permission_denials"`
	TotalOpens                   int    `json:"total_opens"`
}

type sessionView struct {
	ID        string `json:"id"`
	CreatedAt string `json:"created_at,omitempty"`
	LastUsed  string `json:"last_used,omitempty"`
}

type callsView struct {
	ThisHour  int    `json:"this_hour"`
	Max       int    `json:"max_per_hour"`
	NextReset string `json:"next_reset"` // local HH:MM:SS
}

// statusFile is the part of status.json the summary reads.
type statusFile struct {
	LoopCount      int     `json:"loop_count"`
	MaxCalls       int     `json:"max_calls_per_hour"`
	Status         string  `json:"status"`
	LastAction     string  `json:"last_action"`
	ExitReason     string  `json:"exit_reason"`
	TasksCompleted int     `json:"tasks_completed"`
	TasksTotal     int     `json:"tasks_total"`
	Input          int64   `json:"input_tokens_total"`
	Output         int64   `json:"output_tokens_total"`
	CacheRead      int64   `json:"cache_read_tokens_total"`
	CacheCreate    int64   `json:"cache_creation_tokens_total"`
	Cost           float64 `json:"cost_usd_total"`

	UsageLimits []events.UsageWindow `json:"usage_limits"`
}

// readStatus gathers the view at now.
// maxCalls is the configured hourly limit, shown while status.json has none.
func readStatus(d *ralphdir.Dir, maxCalls int, now time.Time) *statusView {
	return statusAt(d, maxCalls, now, lastEvent(d))
}

// statusAt is readStatus with the event log's last event (nil for none)
// already read.
func statusAt(d *ralphdir.Dir, maxCalls int, now time.Time, last *events.Event) *statusView {
	v := &statusView{Progress: &progressView{}}
	var sf statusFile
	data, found, err := d.ReadFile(ralphdir.Status)
	v.statusData, v.statusErr = data, err
	if err != nil || found {
		v.statusFound = true
		if trimmed := bytes.TrimSpace(data); json.Valid(trimmed) && json.Unmarshal(trimmed, &sf) == nil {
			v.Status = trimmed
			v.Totals = &events.Usage{InputTokens: sf.Input, OutputTokens: sf.Output, CacheReadTokens: sf.CacheRead,
				CacheCreationTokens: sf.CacheCreate, CostUSD: sf.Cost}
			v.Usage = sf.UsageLimits
		}
	}
	v.Progress.Loop, v.Progress.TasksCompleted, v.Progress.TasksTotal = sf.LoopCount, sf.TasksCompleted, sf.TasksTotal
	if held, _ := d.LockHolder(); held != nil {
		v.State.Running, v.State.PID = true, held.PID
	}
	v.State.Paused = d.Exists(ralphdir.PauseFile)
	v.State.Phase = phase(v, sf, last, now)
	readPlan(d, v.Progress)
	readAnalysis(d, v.Progress)
	v.Breaker = readBreaker(d)
	v.Session = readSession(d)
	w := readWindow(d, now)
	if sf.MaxCalls > 0 {
		maxCalls = sf.MaxCalls
	}
	v.Calls = callsView{ThisHour: w.Count, Max: maxCalls, NextReset: ratelimit.NextResetClock(now)}
	return v
}

// phase tells running, paused, waiting (for what, until when), stopped (and
// why) or not started, from the lock, the pause file and the last event.
func phase(v *statusView, sf statusFile, last *events.Event, now time.Time) string {
	if !v.State.Running {
		if !v.statusFound {
			return "not_started"
		}
		v.State.Reason = sf.ExitReason
		if v.State.Reason == "" {
			// No loop holds the lock, yet none wrote why it ended: it
			// was killed, or the machine went down.
			v.State.Reason = "no loop is running; status.json last said " + sf.Status
			if sf.Status == "" {
				v.State.Reason = "no loop is running; status.json cannot be read"
			}
		}
		return "stopped"
	}
	if last != nil {
		switch last.Type {
		case events.IterationStarted:
			v.Progress.CallRunning = true
			secs := int64(now.Sub(last.TS).Seconds())
			v.Progress.CallElapsedSecs = &secs
		case events.DelayStarted, events.RateLimited, events.UsageLimited:
			v.State.WaitingFor = last.Wait
			if last.Until != nil {
				until := last.Until.Truncate(time.Second)
				v.State.Until = &until
			}
			if v.State.WaitingFor == "" {
				v.State.WaitingFor = string(last.Type)
			}
		}
	}
	switch {
	case v.State.Paused:
		return "paused"
	case v.State.WaitingFor != "":
		return "waiting"
	}
	return "running"
}

// tailBytes bounds how much of events.jsonl --status reads: its end only.
const tailBytes = 256 << 10

// lastEvent is the last whole event of logs/events.jsonl, nil when there
// is none or it cannot be read.
func lastEvent(d *ralphdir.Dir) *events.Event {
	evs := tailEvents(tailLogs(d, []string{ralphdir.EventsLog}, tailBytes), 1)
	if len(evs) == 0 {
		return nil
	}
	return &evs[0]
}

// tailEvents is the last n whole events of an event log's tail, oldest
// first.
func tailEvents(tail []byte, n int) []events.Event {
	var out []events.Event
	lines := bytes.Split(tail, []byte("\n"))
	for i := len(lines) - 1; i >= 0 && len(out) < n; i-- {
		var e events.Event
		if json.Unmarshal(lines[i], &e) == nil && e.Type != "" {
			out = append(out, e)
		}
	}
	slices.Reverse(out)
	return out
}

func readPlan(d *ralphdir.Dir, p *progressView) {
	if data, found, err := d.ReadFile(ralphdir.FixPlan); err == nil && found {
		p.Task = fixplan.NextTask(data)
	}
}

func readAnalysis(d *ralphdir.Dir, p *progressView) {
	var ra analysis.ResponseAnalysis
	if data, found, err := d.ReadFile(ralphdir.ResponseAnalysis); err == nil && found && json.Unmarshal(data, &ra) == nil {
		p.LastLoopSummary = console.SummaryLine(ra.Analysis.WorkSummary)
		p.LastLoopComplete = ra.Analysis.TasksCompletedThisLoop
	}
}

func readBreaker(d *ralphdir.Dir) *breakerView {
	var s breaker.State
	data, found, err := d.ReadFile(ralphdir.CircuitBreakerState)
	if err != nil || !found || json.Unmarshal(data, &s) != nil {
		return nil
	}
	return &breakerView{State: s.State, Reason: s.Reason, ConsecutiveNoProgress: s.ConsecutiveNoProgress,
		ConsecutiveSameError: s.ConsecutiveSameError, ConsecutivePermissionDenials: s.ConsecutivePermissionDenials,
		TotalOpens: s.TotalOpens}
}

func readSession(d *ralphdir.Dir) *sessionView {
	var s session.RalphSession
	data, found, err := d.ReadFile(ralphdir.RalphSession)
	if err != nil || !found || json.Unmarshal(data, &s) != nil || s.SessionID == "" {
		return nil
	}
	return &sessionView{ID: s.SessionID, CreatedAt: s.CreatedAt, LastUsed: s.LastUsed}
}

// readWindow is the call count of the current clock hour: a count of an
// earlier hour is 0 now.
func readWindow(d *ralphdir.Dir, now time.Time) ratelimit.Window {
	w, _ := ratelimit.Peek(d).Roll(now)
	return w
}

// showStatusJSON is --status --json: one JSON object on stdout.
func showStatusJSON(d *ralphdir.Dir, maxCalls int, stdout io.Writer) error {
	b, err := json.MarshalIndent(readStatus(d, maxCalls, time.Now()), "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(stdout, "%s\n", b)
	return err
}

// writeSummary is the short view for a person, after status.json.
func writeSummary(w io.Writer, v *statusView) {
	fmt.Fprintln(w, "\nSummary:")
	fmt.Fprintf(w, "  State:     %s\n", stateLine(v))
	if v.Progress.Task != "" {
		fmt.Fprintf(w, "  Task:      %s\n", v.Progress.Task)
	}
	if v.Progress.TasksTotal > 0 {
		fmt.Fprintf(w, "  Tasks:     %d/%d done\n", v.Progress.TasksCompleted, v.Progress.TasksTotal)
	}
	if s := v.Progress.LastLoopSummary; s != "" {
		fmt.Fprintf(w, "  Last loop: %s\n", s)
	}
	if b := v.Breaker; b != nil {
		fmt.Fprintf(w, "  Breaker:   %s (no progress %d, same error %d, permission denials %d, opens %d)\n",
			b.State, b.ConsecutiveNoProgress, b.ConsecutiveSameError, b.ConsecutivePermissionDenials, b.TotalOpens)
	}
	fmt.Fprintf(w, "  Calls:     %d/%d this hour, next reset %s\n", v.Calls.ThisHour, v.Calls.Max, v.Calls.NextReset)
	if t := v.Totals; t != nil {
		fmt.Fprintf(w, "  Tokens:    %d in, %d out, $%.4f so far\n", t.InputTokens, t.OutputTokens, t.CostUSD)
	}
	for _, u := range v.Usage {
		fmt.Fprintf(w, "  Usage:     %s\n", console.UsageWindowLine(u))
	}
}

func stateLine(v *statusView) string {
	s := v.State
	var b strings.Builder
	b.WriteString(strings.ReplaceAll(s.Phase, "_", " "))
	if s.PID > 0 {
		fmt.Fprintf(&b, " (pid %d)", s.PID)
	}
	switch s.Phase {
	case "waiting":
		fmt.Fprintf(&b, " for %s", s.WaitingFor)
		if s.Until != nil {
			fmt.Fprintf(&b, " until %s", s.Until.Local().Format("15:04:05"))
		}
	case "stopped":
		if s.Reason != "" {
			fmt.Fprintf(&b, ": %s", s.Reason)
		}
	}
	if v.Progress.Loop > 0 {
		fmt.Fprintf(&b, ", loop %d", v.Progress.Loop)
	}
	if e := v.Progress.CallElapsedSecs; e != nil {
		fmt.Fprintf(&b, ", agent call running for %s", (time.Duration(*e) * time.Second).String())
	}
	return b.String()
}
