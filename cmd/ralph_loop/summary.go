package main

import (
	"github.com/ralphloop/ralph_loop/internal/clip"
	"github.com/ralphloop/ralph_loop/internal/events"
	"github.com/ralphloop/ralph_loop/internal/ralphdir"
)

// dashSummaryEvents is the end of the event log a summary reads for the
// last event (the loop's phase): enough for any one event line.
const dashSummaryEvents = 64 << 10

// dashSummary is one project in the overview of many (--serve
// --projects): the fields of its row, in the shape of the snapshot's, and
// nothing more. Texts are clipped so that no project can swell the page.
type dashSummary struct {
	State    stateView       `json:"state"`
	Progress summaryProgress `json:"progress"`
	Breaker  *summaryBreaker `json:"breaker"`
	Calls    callsView       `json:"calls"`
	Totals   summaryTotals   `json:"totals"`
}

type summaryProgress struct {
	Loop           int `json:"loop"`
	TasksCompleted int `json:"tasks_completed"`
	TasksTotal     int `json:"tasks_total"`
}

type summaryBreaker struct {
	State string `json:"state"`
}

type summaryTotals struct {
	CostUSD float64 `json:"cost_usd"`
}

// Summary is the project's row in the overview; it reads the state files
// and the last event, never the plan's tasks nor the timeline.
func (p *projectSource) Summary() any {
	var last *events.Event
	if evs := tailEvents(tailLogs(p.dir, ralphdir.WithRotated(p.dir.Path(ralphdir.EventsLog)), dashSummaryEvents), 1); len(evs) > 0 {
		last = &evs[0]
	}
	v := statusAt(p.dir, p.maxCalls, p.now(), last)
	s := &dashSummary{State: v.State, Calls: v.Calls,
		Progress: summaryProgress{Loop: v.Progress.Loop, TasksCompleted: v.Progress.TasksCompleted, TasksTotal: v.Progress.TasksTotal}}
	s.State.Reason = clip.Runes(s.State.Reason, 120)
	s.State.WaitingFor = clip.Runes(s.State.WaitingFor, 40)
	if v.Breaker != nil {
		s.Breaker = &summaryBreaker{State: clip.Runes(v.Breaker.State, 20)}
	}
	if v.Totals != nil {
		s.Totals.CostUSD = v.Totals.CostUSD
	}
	return s
}
