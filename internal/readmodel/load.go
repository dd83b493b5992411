package readmodel

import (
	"bytes"
	"encoding/json"
	"io"
	"slices"
	"time"

	"github.com/ralphloop/ralph_loop/internal/events"
	"github.com/ralphloop/ralph_loop/internal/fixplan"
	"github.com/ralphloop/ralph_loop/internal/ralphdir"
	"github.com/ralphloop/ralph_loop/internal/report"
	"github.com/ralphloop/ralph_loop/ratelimit"
)

// Load reads the View of d at now, as --status shows it, without writing a
// byte there. maxCalls is the configured hourly limit, shown while
// status.json has none.
func Load(d *ralphdir.Dir, maxCalls int, now time.Time) *View {
	return build(readState(d, now, statusTail, false), maxCalls, now)
}

// statusFile is the part of status.json a View reads.
type statusFile struct {
	LoopCount      int     `json:"loop_count"`
	MaxCalls       int     `json:"max_calls_per_hour"`
	Status         string  `json:"status"`
	LastAction     string  `json:"last_action"`
	ExitReason     string  `json:"exit_reason"`
	TasksCompleted int     `json:"tasks_completed"`
	TasksTotal     int     `json:"tasks_total"`
	CallsRun       int     `json:"calls_this_run"`
	CallsFailed    int     `json:"failed_calls_this_run"`
	Input          int64   `json:"input_tokens_total"`
	Output         int64   `json:"output_tokens_total"`
	CacheRead      int64   `json:"cache_read_tokens_total"`
	CacheCreate    int64   `json:"cache_creation_tokens_total"`
	Cost           float64 `json:"cost_usd_total"`

	UsageLimits []events.UsageWindow `json:"usage_limits"`
	Question    *events.Question     `json:"question"`
}

// build is the View of r at now.
func build(r folderState, maxCalls int, now time.Time) *View {
	v := &View{StatusFound: r.StatusFound, StatusData: r.Status, StatusErr: r.StatusErr}
	var sf statusFile
	if r.StatusFound {
		if trimmed := bytes.TrimSpace(r.Status); json.Valid(trimmed) && json.Unmarshal(trimmed, &sf) == nil {
			v.Status = trimmed
			v.Totals = &events.Usage{InputTokens: sf.Input, OutputTokens: sf.Output, CacheReadTokens: sf.CacheRead,
				CacheCreationTokens: sf.CacheCreate, CostUSD: sf.Cost}
			v.Usage = sf.UsageLimits
		}
	}
	v.Progress.Loop, v.Progress.TasksCompleted, v.Progress.TasksTotal = sf.LoopCount, sf.TasksCompleted, sf.TasksTotal
	v.State.Running, v.State.PID = r.PID > 0, r.PID
	v.State.Paused = r.Paused
	var last *events.Event
	if evs := lastEvents(r.Events, 1); len(evs) > 0 {
		last = &evs[0]
	}
	v.State.Phase = phase(v, sf, last, now)
	if r.Plan != nil {
		v.Progress.Task = fixplan.NextTask(r.Plan)
	}
	if ra := r.Analysis; ra != nil {
		v.Progress.LastLoopSummary = events.SummaryLine(ra.Analysis.WorkSummary)
		v.Progress.LastLoopComplete = ra.Analysis.TasksCompletedThisLoop
	}
	if s := r.Breaker; s != nil {
		v.Breaker = &breakerView{State: s.State, Reason: s.Reason, ConsecutiveNoProgress: s.ConsecutiveNoProgress,
			ConsecutiveSameError: s.ConsecutiveSameError, ConsecutivePermissionDenials: s.ConsecutivePermissionDenials,
			TotalOpens: s.TotalOpens}
	}
	if s := r.Session; s != nil {
		v.Session = &sessionView{ID: s.SessionID, CreatedAt: s.CreatedAt, LastUsed: s.LastUsed}
	}
	// The call count of the current clock hour: a count of an earlier
	// hour is 0 now.
	w, _ := r.Window.Roll(now)
	if sf.MaxCalls > 0 {
		maxCalls = sf.MaxCalls
	}
	v.Calls = calls{ThisHour: w.Count, Max: maxCalls, NextReset: ratelimit.NextResetClock(now), Run: sf.CallsRun, Failed: sf.CallsFailed}
	if m := r.Swarm; m != nil {
		sv := &swarmView{Membership: m, Calls: m.Spent.Calls, Tokens: m.Spent.Tokens, CostUSD: m.Spent.CostUSD}
		if v.State.Running && v.Totals != nil {
			// The run under way: swarm.json counts a run once it ended.
			sv.Calls += max(sf.CallsRun, sf.LoopCount)
			sv.Tokens += v.Totals.Tokens()
			sv.CostUSD = events.RoundCost(sv.CostUSD + v.Totals.CostUSD)
		}
		v.Swarm = sv
	}
	return v
}

// phase tells running, paused, waiting (for what, until when), stopped (and
// why) or not started, from the lock, the pause file and the last event.
func phase(v *View, sf statusFile, last *events.Event, now time.Time) string {
	if !v.State.Running {
		if !v.StatusFound {
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
	if q := sf.Question; q != nil && sf.LastAction == "waiting_for_answer" {
		// The loop waits for the person's answer: no call until it comes.
		v.State.Question, v.State.WaitingFor, v.State.Until = q, events.WaitQuestion, q.Until
		v.Progress.CallRunning, v.Progress.CallElapsedSecs = false, nil
	}
	switch {
	case v.State.Paused:
		return "paused"
	case v.State.Question != nil:
		return "waiting_for_answer"
	case v.State.WaitingFor != "":
		return "waiting"
	}
	return "running"
}

// The dashboard's bounds: what one snapshot holds.
const (
	pageLoops  = 50  // loops in the timeline
	pageEvents = 30  // last events
	pageTasks  = 300 // plan tasks
)

// addTimeline adds to v the plan's tasks, the last run's loops and the
// last events of r's event log, each event put in words by text.
func addTimeline(v *View, r folderState, text func(events.Event) string) {
	t := &timeline{Loops: []loop{}, Plan: []fixplan.Task{}, Events: []eventLine{}}
	if r.Plan != nil {
		t.Plan, t.PlanTotal = fixplan.Tasks(r.Plan, pageTasks)
		t.PlanDone = fixplan.Count(r.Plan).Checked
	}
	runs, _ := report.Read(bytes.NewReader(r.Events))
	if last := report.Last(runs); last != nil {
		t.Run = &run{RunID: last.RunID, Driver: last.Driver, Started: last.Started, Finished: last.Finished,
			ExitReason: last.ExitReason, ExitCode: last.ExitCode}
		t.LoopsTotal = len(last.Loops)
		for _, l := range last.Loops[max(0, len(last.Loops)-pageLoops):] {
			d := loop{Loop: l.Loop, Outcome: l.Outcome, Seconds: l.Seconds, FilesChanged: l.FilesChanged, Ticked: l.Ticked}
			if l.Usage != nil {
				d.Tokens, d.CostUSD = l.Usage.Tokens(), l.Usage.CostUSD
			}
			t.Loops = append(t.Loops, d)
		}
	}
	for _, e := range lastEvents(r.Events, pageEvents) {
		// Two runs started in the same second share their id: an event
		// before the shown run's start is the earlier one's.
		other := t.Run != nil && (e.RunID != t.Run.RunID || e.TS.Before(t.Run.Started))
		t.Events = append(t.Events, eventLine{TS: e.TS, Type: string(e.Type), Text: text(e), RunID: e.RunID, OtherRun: other})
	}
	v.Timeline = t
}

// lastEvents is the last n whole events of an event log's tail, oldest
// first.
func lastEvents(tail []byte, n int) []events.Event {
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

// tailLogs is the last n bytes of the files, oldest first, read as one
// (a log and its rotated copies: the end spans a rotation). A missing or
// unreadable file (a link among them) is skipped.
func tailLogs(d *ralphdir.Dir, names []string, n int64) []byte {
	var parts [][]byte
	left := n
	for i := len(names) - 1; i >= 0 && left > 0; i-- {
		f, err := d.Open(names[i])
		if err != nil {
			continue
		}
		st, err := f.Stat()
		if err == nil {
			off := max(0, st.Size()-left)
			data, _ := io.ReadAll(io.NewSectionReader(f, off, st.Size()-off))
			if len(data) > 0 && data[len(data)-1] != '\n' {
				data = append(data, '\n')
			}
			parts = append(parts, data)
			left -= int64(len(data))
		}
		f.Close()
	}
	var out []byte
	for i := len(parts) - 1; i >= 0; i-- {
		out = append(out, parts[i]...)
	}
	return out
}
