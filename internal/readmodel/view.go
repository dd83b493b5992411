package readmodel

import (
	"encoding/json"
	"time"

	"github.com/ralphloop/ralph_loop/internal/events"
	"github.com/ralphloop/ralph_loop/internal/fixplan"
)

// View is what a reader shows of one .ralph/ folder. Marshalled, it is
// the --status --json object (the dashboard's snapshot adds its timeline,
// see Page). A file that is missing or cannot be read leaves its part null.
type View struct {
	State    state           `json:"state"`
	Status   json.RawMessage `json:"status"`   // status.json as the loop wrote it
	Progress progress        `json:"progress"` // never null
	Breaker  *breakerView    `json:"breaker"`
	Session  *sessionView    `json:"session"`
	Calls    calls           `json:"calls"`
	Totals   *events.Usage   `json:"totals"`
	// Usage is status.json's usage_limits: the provider's usage windows as
	// last reported (absent until an agent CLI reported one).
	Usage []events.UsageWindow `json:"usage_limits,omitempty"`

	// Timeline is the last run's loops, the plan and the last events, for
	// the dashboard (nil for --status).
	Timeline *timeline `json:"-"`

	StatusFound bool   `json:"-"` // status.json exists, readable or not
	StatusData  []byte `json:"-"` // status.json as read, for --status to show
	StatusErr   error  `json:"-"` // why status.json could not be read
}

// state says what the loop is doing now.
type state struct {
	Phase      string     `json:"phase"` // running, paused, waiting, stopped, not_started
	Running    bool       `json:"running"`
	PID        int        `json:"pid,omitempty"`
	Paused     bool       `json:"paused"`
	WaitingFor string     `json:"waiting_for,omitempty"` // loop_delay, rate_limit, usage_limit, ...
	Until      *time.Time `json:"until,omitempty"`
	Reason     string     `json:"reason,omitempty"` // why it stopped
}

type progress struct {
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

type calls struct {
	ThisHour  int    `json:"this_hour"`
	Max       int    `json:"max_per_hour"`
	NextReset string `json:"next_reset"` // local HH:MM:SS
	// Run and Failed: the last run's calls, every one, and those that
	// failed (status.json's calls_this_run, failed_calls_this_run).
	Run    int `json:"this_run"`
	Failed int `json:"failed_this_run"`
}

// timeline is what the dashboard shows beyond --status: the last run's
// loops (from the event log, as --report reads it), the plan and the last
// events.
type timeline struct {
	Run        *run           `json:"run"`
	Loops      []loop         `json:"loops"`
	LoopsTotal int            `json:"loops_total"`
	Plan       []fixplan.Task `json:"plan"`
	PlanTotal  int            `json:"plan_total"`
	Events     []eventLine    `json:"events"`
}

type run struct {
	RunID      string    `json:"run_id"`
	Driver     string    `json:"driver,omitempty"`
	Started    time.Time `json:"started"`
	Finished   bool      `json:"finished"`
	ExitReason string    `json:"exit_reason,omitempty"`
	ExitCode   *int      `json:"exit_code,omitempty"`
}

type loop struct {
	Loop         int      `json:"loop"`
	Outcome      string   `json:"outcome"`
	Seconds      float64  `json:"seconds"`
	FilesChanged int      `json:"files_changed"`
	Tokens       int64    `json:"tokens"`
	CostUSD      float64  `json:"cost_usd"`
	Ticked       []string `json:"tasks_ticked,omitempty"`
}

type eventLine struct {
	TS   time.Time `json:"ts"`
	Type string    `json:"type"`
	Text string    `json:"text"`
}

// page is the dashboard's snapshot of a project: its name, the View and
// the timeline, as one JSON object (GET /api/p/N/snapshot).
type page struct {
	Name string `json:"name"`
	*View
	*timeline
}
