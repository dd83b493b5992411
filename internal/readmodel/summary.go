package readmodel

import "github.com/ralphloop/ralph_loop/internal/clip"

// summary is one project in the overview of many (--serve --projects):
// the fields of its row, in the shape of the snapshot's, and nothing more.
// Texts are clipped so that no project can swell the page.
type summary struct {
	State    state           `json:"state"`
	Progress summaryProgress `json:"progress"`
	Breaker  *summaryBreaker `json:"breaker"`
	Calls    calls           `json:"calls"`
	Totals   summaryTotals   `json:"totals"`
	Swarm    *summarySwarm   `json:"swarm,omitempty"`
}

// summarySwarm is a swarm worker's part of its row: where it stands in
// the swarm, why it was not merged, and what all its runs cost.
type summarySwarm struct {
	Worker    string  `json:"worker"`
	State     string  `json:"state"`
	Merged    bool    `json:"merged"`
	NotMerged bool    `json:"not_merged"`
	Note      string  `json:"note,omitempty"`
	Calls     int     `json:"calls"`
	CostUSD   float64 `json:"cost_usd"`
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

// summaryOf is v's row in the overview.
func summaryOf(v *View) *summary {
	s := &summary{State: v.State, Calls: v.Calls,
		Progress: summaryProgress{Loop: v.Progress.Loop, TasksCompleted: v.Progress.TasksCompleted, TasksTotal: v.Progress.TasksTotal}}
	s.State.Reason = clip.Runes(s.State.Reason, 120)
	s.State.WaitingFor = clip.Runes(s.State.WaitingFor, 40)
	if v.Breaker != nil {
		s.Breaker = &summaryBreaker{State: clip.Runes(v.Breaker.State, 20)}
	}
	if v.Totals != nil {
		s.Totals.CostUSD = v.Totals.CostUSD
	}
	if w := v.Swarm; w != nil {
		s.Swarm = &summarySwarm{Worker: w.Worker, State: clip.Runes(w.State, 20), Merged: w.Merged, NotMerged: w.NotMerged,
			Note: clip.Runes(w.Note, 160), Calls: w.Calls, CostUSD: w.CostUSD}
	}
	return s
}
