package events

import (
	"math"
	"time"
)

// SchemaVersion is written as "v" in every event line; bump it when a field
// changes meaning (adding fields does not).
const SchemaVersion = 1

// Type names an event. The values are the stable strings of docs/EVENTS.md.
type Type string

const (
	RunStarted         Type = "run_started"
	IterationStarted   Type = "iteration_started"
	IterationCompleted Type = "iteration_completed"
	IterationFailed    Type = "iteration_failed"
	IterationTimedOut  Type = "iteration_timed_out"
	IterationIdle      Type = "iteration_idle"
	IterationDenied    Type = "iteration_permission_denied"
	IterationProgress  Type = "iteration_progress" // while the agent runs; not written to the event log
	DelayStarted       Type = "delay_started"
	DelayEnded         Type = "delay_ended"
	BreakerChanged     Type = "breaker_changed"
	RateLimited        Type = "rate_limited"
	UsageLimited       Type = "usage_limited"
	UsageUpdated       Type = "usage_updated" // the known usage of the provider's windows changed (Snapshot.UsageLimits)
	Paused             Type = "paused"
	Resumed            Type = "resumed"
	ReviewCompleted    Type = "review_completed"
	RunFinished        Type = "run_finished"
)

// Types are the event types a run writes to the event log
// (iteration_progress is not written).
var Types = []Type{
	RunStarted, IterationStarted, IterationCompleted, IterationFailed,
	IterationTimedOut, IterationIdle, IterationDenied, DelayStarted,
	DelayEnded, BreakerChanged, RateLimited, UsageLimited, UsageUpdated,
	DriverSwitched, Paused, Resumed, ReviewCompleted, RunFinished,
}

// Usage is the token and cost accounting of one agent call (or a total).
type Usage struct {
	InputTokens         int64   `json:"input_tokens"`
	OutputTokens        int64   `json:"output_tokens"`
	CacheReadTokens     int64   `json:"cache_read_tokens"`
	CacheCreationTokens int64   `json:"cache_creation_tokens"`
	CostUSD             float64 `json:"cost_usd"`
}

// Add returns u + o. The cost is rounded to CostPrecision, so that a total
// is the decimal sum of the figures the agent reported (0.1 added eight
// times is 0.8, not 0.7999999999999999) and a budget compares as written.
func (u Usage) Add(o Usage) Usage {
	return Usage{
		InputTokens:         u.InputTokens + o.InputTokens,
		OutputTokens:        u.OutputTokens + o.OutputTokens,
		CacheReadTokens:     u.CacheReadTokens + o.CacheReadTokens,
		CacheCreationTokens: u.CacheCreationTokens + o.CacheCreationTokens,
		CostUSD:             RoundCost(u.CostUSD + o.CostUSD),
	}
}

// costPrecision is the unit cost totals are kept in: a nano-dollar.
const costPrecision = 1e-9

// RoundCost rounds usd to the nearest CostPrecision. The result is the
// float64 nearest to that decimal, the same value strconv.ParseFloat gives
// for its shortest spelling. Amounts beyond exact float64 nano-dollars
// (about $9 million) and NaN or Inf are returned unchanged.
func RoundCost(usd float64) float64 {
	const scale = 1 / costPrecision
	if math.IsNaN(usd) || math.IsInf(usd, 0) || math.Abs(usd) >= (1<<53)/scale {
		return usd
	}
	return math.Round(usd*scale) / scale
}

// Tokens is the sum of every token count.
func (u Usage) Tokens() int64 {
	return u.InputTokens + u.OutputTokens + u.CacheReadTokens + u.CacheCreationTokens
}

// Snapshot is the run's state that every event carries, so that each sink
// can render itself from the last event alone (status.json is a snapshot
// view; the metrics line is an iteration view).
type Snapshot struct {
	Loop          int `json:"loop"`
	CallsThisHour int `json:"calls_made_this_hour"`
	MaxCalls      int `json:"max_calls_per_hour"`
	// Calls and FailedCalls are the run's agent calls, every one, and
	// those of them that failed (an error, a timeout, a usage limit, a
	// reply that did nothing); CallsThisHour, the window of the hourly
	// limit, counts a failed call only when the provider served it.
	Calls          int    `json:"calls_this_run"`
	FailedCalls    int    `json:"failed_calls_this_run"`
	NextReset      string `json:"next_reset,omitempty"` // local HH:MM:SS of the call window's reset
	TasksCompleted int    `json:"tasks_completed"`
	TasksTotal     int    `json:"tasks_total"`
	BreakerState   string `json:"breaker_state,omitempty"`
	Totals         Usage  `json:"totals"`
	QualityGates   *Gates `json:"quality_gates,omitempty"`
	// UsageLimits is the latest usage the agent CLIs reported of the
	// provider's windows; absent until one reports any.
	UsageLimits []UsageWindow `json:"usage_limits,omitempty"`
	// ActiveDriver is the driver the calls go to, set only when a
	// FALLBACK_DRIVER is configured.
	ActiveDriver string `json:"active_driver,omitempty"`
}

// UsageWindow is the latest known state of one usage window of one agent
// CLI's provider (Claude's five_hour and seven_day, Codex's primary and
// secondary...).
type UsageWindow struct {
	Driver        string     `json:"driver"`                   // the PLATFORM_DRIVER that reported it
	Window        string     `json:"window"`                   // five_hour, seven_day, primary, secondary...; "unknown" when the CLI did not name it
	Status        string     `json:"status"`                   // allowed, allowed_warning, rejected
	UsedPercent   *float64   `json:"used_percent,omitempty"`   // 0..100, when reported
	ResetsAt      *time.Time `json:"resets_at,omitempty"`      // when reported
	WindowMinutes int        `json:"window_minutes,omitempty"` // the window's length, when reported
	UpdatedAt     time.Time  `json:"updated_at"`               // the end of the call that reported it
}

// Named reports whether the CLI named the window ("unknown" or empty when
// it did not).
func (w UsageWindow) Named() bool { return w.Window != "" && w.Window != "unknown" }

// Gates is the quality-gate summary merged into status.json.
type Gates struct {
	OverallStatus string `json:"overall_status"`
	Mode          string `json:"mode"`
	// Failing names the gates that failed (their commands), and Log the
	// file with their whole output: added fields, absent when all pass.
	Failing []string `json:"failing,omitempty"`
	Log     string   `json:"log,omitempty"`
}

// TaskVerdict is VERIFY_COMMAND's verdict on one task a call ticked.
type TaskVerdict struct {
	Task     string `json:"task"`
	Passed   bool   `json:"passed"`
	ExitCode int    `json:"exit_code"`
	TimedOut bool   `json:"timed_out,omitempty"`
}

// Iteration describes one finished agent call (the metrics.jsonl line).
type Iteration struct {
	Outcome               string   `json:"outcome"` // success, error, timeout, idle, permission_denied, api_limit, circuit_breaker_trip, read_only_timeout
	Driver                string   `json:"driver"`
	SessionID             string   `json:"session_id"`
	DriverExitCode        *int     `json:"driver_exit_code,omitempty"`
	WallMS                int64    `json:"wall_ms"`               // measured by the loop
	DurationMS            *int64   `json:"duration_ms,omitempty"` // as the agent reported it
	DurationAPIMS         *int64   `json:"duration_api_ms,omitempty"`
	NumTurns              *int64   `json:"num_turns,omitempty"`
	Usage                 *Usage   `json:"usage,omitempty"`
	FilesChanged          int      `json:"files_changed"`
	ReportedFilesModified int      `json:"reported_files_modified"`
	HasErrors             bool     `json:"has_errors"`
	ExitSignal            bool     `json:"exit_signal"`
	QualityGateResult     *int     `json:"quality_gate_result,omitempty"`
	HasPermissionDenials  bool     `json:"has_permission_denials"`
	States                []string `json:"states,omitempty"` // <!-- ralph:state NAME --> markers
	Detail                string   `json:"detail,omitempty"`
	OutputFile            string   `json:"output_file,omitempty"`
	TasksTicked           []string `json:"tasks_ticked,omitempty"` // plan tasks checked during the call, their text without the box
	// Verified: VERIFY_COMMAND's verdict on each task the call ticked
	// (a task whose check failed is unticked, and not in TasksTicked).
	Verified []TaskVerdict `json:"verified,omitempty"`
}

// Event is one line of logs/events.jsonl (docs/EVENTS.md): one thing that
// happened, as observe.Lines builds it from the typed report and as the
// readers of the log (--report, --status, the dashboard) decode it. Fields
// that do not apply to a type are left empty and omitted.
type Event struct {
	V     int       `json:"v"`
	TS    time.Time `json:"ts"`
	Type  Type      `json:"type"`
	RunID string    `json:"run_id"`
	Snapshot

	// For status.json: what the loop is doing (last_action) and the
	// bmalph status value. Every event that changes them sets both.
	Action string `json:"action,omitempty"`
	Status string `json:"status,omitempty"`

	Iteration *Iteration `json:"iteration,omitempty"`

	// Waits (delay_started/ended, rate_limited, usage_limited, paused).
	Wait      string     `json:"wait,omitempty"` // loop_delay, idle_backoff, failure_backoff, outage_backoff, rate_limit, usage_limit
	DelaySecs float64    `json:"delay_seconds,omitempty"`
	Until     *time.Time `json:"until,omitempty"`
	Skipped   bool       `json:"skipped,omitempty"`

	// breaker_changed
	From   string `json:"from,omitempty"`
	To     string `json:"to,omitempty"`
	Reason string `json:"reason,omitempty"` // also run_finished's exit reason

	// run_finished
	ExitCode       *int `json:"exit_code,omitempty"`
	DriverExitCode *int `json:"driver_exit_code,omitempty"`

	// driver_switched (with From, To and Until)
	Why string `json:"why,omitempty"`

	// run_started
	Driver  string `json:"driver,omitempty"`
	Version string `json:"version,omitempty"`
	Message string `json:"message,omitempty"`

	// Stop is how a run ended early (run_finished), whose words are
	// Message; not written (a notifier selects by it).
	Stop *Stop `json:"-"`
}

// ISOTime is a run id's time as the bash loop writes it (`date -u
// -Iseconds`): UTC with a +00:00 suffix.
func ISOTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05+00:00") }
