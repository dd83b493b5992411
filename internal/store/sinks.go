package store

import (
	"encoding/json"
	"fmt"
	"io"
	"sync"

	"github.com/ralphloop/ralph_loop/internal/clip"
	"github.com/ralphloop/ralph_loop/internal/events"
	"github.com/ralphloop/ralph_loop/internal/observe"
	"github.com/ralphloop/ralph_loop/internal/ralphdir"
)

// StatusFile is status.json as the bash loop writes it (key order kept),
// plus tasks_completed/tasks_total (bmalph reads them; the bash loop never
// wrote them) and the run's usage totals (added fields).
type StatusFile struct {
	Timestamp         string        `json:"timestamp"`
	LoopCount         int           `json:"loop_count"`
	CallsMadeThisHour int           `json:"calls_made_this_hour"`
	MaxCallsPerHour   int           `json:"max_calls_per_hour"`
	LastAction        string        `json:"last_action"`
	Status            string        `json:"status"`
	ExitReason        string        `json:"exit_reason"`
	NextReset         string        `json:"next_reset"`
	DriverExitCode    *int          `json:"driver_exit_code"`
	TasksCompleted    int           `json:"tasks_completed"`
	TasksTotal        int           `json:"tasks_total"`
	ActiveDriver      string        `json:"active_driver,omitempty"` // FALLBACK_DRIVER configured: the driver in use
	InputTokens       int64         `json:"input_tokens_total"`
	OutputTokens      int64         `json:"output_tokens_total"`
	CacheReadTokens   int64         `json:"cache_read_tokens_total"`
	CacheCreateTokens int64         `json:"cache_creation_tokens_total"`
	CostUSD           float64       `json:"cost_usd_total"`
	QualityGates      *events.Gates `json:"quality_gates,omitempty"`
	// UsageLimits: the latest usage the agent CLIs reported of the
	// provider's windows, once any reported one (an added field).
	UsageLimits []events.UsageWindow `json:"usage_limits,omitempty"`
}

// StatusOf renders the status.json content for e; exit_reason is kept
// from the events that end a run or a call only.
func StatusOf(e events.Event) StatusFile {
	switch e.Type {
	case events.RunFinished, events.IterationFailed, events.IterationTimedOut:
		// exit_reason: the stop reason, or the failed call's description
	default:
		e.Reason = ""
	}
	status := e.Status
	if !ralphdir.ValidStatus(status) {
		// Never write a value bmalph rejects (the bash loop's "retrying").
		status = "running"
	}
	return StatusFile{
		Timestamp:         events.ISOTime(e.TS),
		LoopCount:         e.Loop,
		CallsMadeThisHour: e.CallsThisHour,
		MaxCallsPerHour:   e.MaxCalls,
		LastAction:        e.Action,
		Status:            status,
		ExitReason:        e.Reason,
		NextReset:         e.NextReset,
		DriverExitCode:    e.DriverExitCode,
		TasksCompleted:    e.TasksCompleted,
		TasksTotal:        e.TasksTotal,
		ActiveDriver:      e.ActiveDriver,
		InputTokens:       e.Totals.InputTokens,
		OutputTokens:      e.Totals.OutputTokens,
		CacheReadTokens:   e.Totals.CacheReadTokens,
		CacheCreateTokens: e.Totals.CacheCreationTokens,
		CostUSD:           e.Totals.CostUSD,
		QualityGates:      e.QualityGates,
		UsageLimits:       e.UsageLimits,
	}
}

// Status writes status.json (atomically) for every event that carries a
// status.
type Status struct {
	observe.Nop
	d     *ralphdir.Dir
	onErr func(error)
}

// NewStatus returns the status.json sink.
func NewStatus(d *ralphdir.Dir, onErr func(error)) *Status { return &Status{d: d, onErr: onErr} }

// Event implements observe.Observer.
func (s *Status) Event(e events.Event) {
	if e.Status == "" {
		return
	}
	if err := s.d.WriteJSON(ralphdir.Status, StatusOf(e)); err != nil && s.onErr != nil {
		s.onErr(err)
	}
}

var spinner = []string{"⠸", "⠋", "⠙", "⠹"}

// Progress writes progress.json: the executing form while the agent runs
// (properly JSON-escaped, unlike the bash loop's heredoc), then the
// completed or failed one-liner.
type Progress struct {
	observe.Nop
	d     *ralphdir.Dir
	onErr func(error)
	tick  int
}

// NewProgress returns the progress.json sink.
func NewProgress(d *ralphdir.Dir, onErr func(error)) *Progress { return &Progress{d: d, onErr: onErr} }

type progressExecuting struct {
	Status         string `json:"status"`
	Indicator      string `json:"indicator"`
	ElapsedSeconds int    `json:"elapsed_seconds"`
	LastOutput     string `json:"last_output"`
	Timestamp      string `json:"timestamp"`
}

type progressDone struct {
	Status    string `json:"status"`
	Timestamp string `json:"timestamp"`
}

// Event implements observe.Observer.
func (p *Progress) Event(e events.Event) {
	var v any
	stamp := e.TS.Local().Format(events.LocalStamp)
	switch e.Type {
	case events.IterationStarted:
		p.tick = 0
		return
	case events.IterationProgress:
		p.tick++
		v = progressExecuting{"executing", spinner[p.tick%4], int(e.DelaySecs), clip.Bytes(e.Message, 80), stamp}
	case events.IterationCompleted, events.IterationIdle, events.IterationDenied:
		v = progressDone{"completed", stamp}
	case events.IterationFailed, events.IterationTimedOut:
		v = progressDone{"failed", stamp}
	default:
		return
	}
	if err := p.d.WriteJSON(ralphdir.Progress, v); err != nil && p.onErr != nil {
		p.onErr(err)
	}
}

// metricsLine is one logs/metrics.jsonl line, the bash loop's fields in its
// order, plus our additions at the end.
type metricsLine struct {
	RunID                 string   `json:"run_id"`
	Loop                  int      `json:"loop"`
	Timestamp             string   `json:"timestamp"`
	Driver                string   `json:"driver"`
	SessionID             string   `json:"session_id"`
	LoopOutcome           string   `json:"loop_outcome"`
	DurationMS            *int64   `json:"duration_ms"`
	DurationAPIMS         *int64   `json:"duration_api_ms"`
	InputTokens           *int64   `json:"input_tokens"`
	OutputTokens          *int64   `json:"output_tokens"`
	CacheReadTokens       *int64   `json:"cache_read_tokens"`
	CacheCreationTokens   *int64   `json:"cache_creation_tokens"`
	TotalCostUSD          *float64 `json:"total_cost_usd"`
	NumTurns              *int64   `json:"num_turns"`
	FilesChanged          int      `json:"files_changed"`
	ReportedFilesModified int      `json:"reported_files_modified"`
	HasErrors             bool     `json:"has_errors"`
	ExitSignal            bool     `json:"exit_signal"`
	WasReadOnlyTimeout    bool     `json:"was_read_only_timeout"`
	QualityGateResult     *int     `json:"quality_gate_result"`
	HasPermissionDenials  bool     `json:"has_permission_denials"`
	CircuitBreakerState   string   `json:"circuit_breaker_state"`
	OutcomeDetail         string   `json:"outcome_detail,omitempty"`
	WallMS                int64    `json:"wall_ms"`
	DriverExitCode        *int     `json:"driver_exit_code,omitempty"`
}

// Metrics appends one line per finished agent call to logs/metrics.jsonl.
// Unlike the bash loop, failed, timed-out and breaker-tripping calls get
// their line too.
type Metrics struct {
	observe.Nop
	d     *ralphdir.Dir
	onErr func(error)
}

// NewMetrics returns the metrics.jsonl sink.
func NewMetrics(d *ralphdir.Dir, onErr func(error)) *Metrics { return &Metrics{d: d, onErr: onErr} }

// OutcomeOf maps an iteration outcome to the bash loop's loop_outcome set.
func OutcomeOf(o string) string {
	switch o {
	case "success", "idle", "permission_denied":
		return "success"
	case "api_limit", "circuit_breaker_trip", "read_only_timeout":
		return o
	default:
		return "error"
	}
}

// Event implements observe.Observer.
func (m *Metrics) Event(e events.Event) {
	it := e.Iteration
	if it == nil {
		return
	}
	switch e.Type {
	case events.IterationCompleted, events.IterationFailed, events.IterationTimedOut, events.IterationIdle, events.IterationDenied:
	default:
		return
	}
	l := metricsLine{
		RunID: e.RunID, Loop: e.Loop, Timestamp: events.ISOTime(e.TS), Driver: it.Driver, SessionID: it.SessionID,
		LoopOutcome: OutcomeOf(it.Outcome), DurationMS: it.DurationMS, DurationAPIMS: it.DurationAPIMS,
		NumTurns: it.NumTurns, FilesChanged: it.FilesChanged, ReportedFilesModified: it.ReportedFilesModified,
		HasErrors: it.HasErrors, ExitSignal: it.ExitSignal, WasReadOnlyTimeout: it.Outcome == "read_only_timeout",
		QualityGateResult: it.QualityGateResult, HasPermissionDenials: it.HasPermissionDenials,
		CircuitBreakerState: e.BreakerState, WallMS: it.WallMS, DriverExitCode: it.DriverExitCode,
	}
	if l.CircuitBreakerState == "" {
		l.CircuitBreakerState = "UNKNOWN"
	}
	if OutcomeOf(it.Outcome) != it.Outcome {
		l.OutcomeDetail = it.Outcome
	}
	if u := it.Usage; u != nil {
		l.InputTokens, l.OutputTokens = &u.InputTokens, &u.OutputTokens
		l.CacheReadTokens, l.CacheCreationTokens = &u.CacheReadTokens, &u.CacheCreationTokens
		l.TotalCostUSD = &u.CostUSD
	}
	if err := m.d.AppendJSONLine(ralphdir.MetricsLog, l); err != nil && m.onErr != nil {
		m.onErr(err)
	}
}

// Stream writes every event (but the per-tick iteration_progress) as one
// NDJSON line: to logs/events.jsonl always, and to --events FILE or stdout
// when asked. Each line is one write on an O_APPEND descriptor, so a reader
// tailing the file only ever sees whole lines.
type Stream struct {
	observe.Nop
	d     *ralphdir.Dir
	extra io.Writer
	onErr func(error)
	once  sync.Once
}

// NewStream returns the event-log sink; extra may be nil.
func NewStream(d *ralphdir.Dir, extra io.Writer, onErr func(error)) *Stream {
	return &Stream{d: d, extra: extra, onErr: onErr}
}

// Event implements observe.Observer.
func (s *Stream) Event(e events.Event) {
	if e.Type == events.IterationProgress {
		return
	}
	b, err := json.Marshal(e)
	if err != nil {
		s.fail(fmt.Errorf("encode event %s: %w", e.Type, err))
		return
	}
	if s.d != nil {
		if err := s.d.AppendLine(ralphdir.EventsLog, string(b)); err != nil {
			s.fail(err)
		}
	}
	if s.extra != nil {
		s.extra.Write(append(b, '\n'))
	}
}

func (s *Stream) fail(err error) {
	if s.onErr != nil {
		s.once.Do(func() { s.onErr(err) })
	}
}

// Sinks are the store's event observers, in the order they must run:
// status.json, progress.json, logs/metrics.jsonl and logs/events.jsonl
// (copied to extra, --events, when it is not nil). onErr receives their
// write errors; none stops the loop.
func Sinks(d *ralphdir.Dir, extra io.Writer, onErr func(error)) []observe.Observer {
	return []observe.Observer{NewStatus(d, onErr), NewProgress(d, onErr), NewMetrics(d, onErr), NewStream(d, extra, onErr)}
}
