package store

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/ralphloop/ralph_loop/internal/clip"
	"github.com/ralphloop/ralph_loop/internal/events"
	"github.com/ralphloop/ralph_loop/internal/observe"
	"github.com/ralphloop/ralph_loop/internal/ralphdir"
)

// StatusFile is status.json as the bash loop writes it (key order kept),
// plus tasks_completed/tasks_total (bmalph reads them; the bash loop never
// wrote them) and the run's usage totals (added fields).
type StatusFile struct {
	Timestamp         string `json:"timestamp"`
	LoopCount         int    `json:"loop_count"`
	CallsMadeThisHour int    `json:"calls_made_this_hour"`
	MaxCallsPerHour   int    `json:"max_calls_per_hour"`
	LastAction        string `json:"last_action"`
	Status            string `json:"status"`
	ExitReason        string `json:"exit_reason"`
	NextReset         string `json:"next_reset"`
	DriverExitCode    *int   `json:"driver_exit_code"`
	TasksCompleted    int    `json:"tasks_completed"`
	TasksTotal        int    `json:"tasks_total"`
	// CallsThisRun and FailedCallsThisRun: every agent call of the run,
	// and those that failed (added fields).
	CallsThisRun       int           `json:"calls_this_run"`
	FailedCallsThisRun int           `json:"failed_calls_this_run"`
	ActiveDriver       string        `json:"active_driver,omitempty"` // FALLBACK_DRIVER configured: the driver in use
	InputTokens        int64         `json:"input_tokens_total"`
	OutputTokens       int64         `json:"output_tokens_total"`
	CacheReadTokens    int64         `json:"cache_read_tokens_total"`
	CacheCreateTokens  int64         `json:"cache_creation_tokens_total"`
	CostUSD            float64       `json:"cost_usd_total"`
	QualityGates       *events.Gates `json:"quality_gates,omitempty"`
	// UsageLimits: the latest usage the agent CLIs reported of the
	// provider's windows, once any reported one (an added field).
	UsageLimits []events.UsageWindow `json:"usage_limits,omitempty"`
	// Question: the agent's question the loop waits on, with status
	// paused and last_action waiting_for_answer (an added field).
	Question *events.Question `json:"question,omitempty"`
}

// StatusOf renders the status.json content at moment m; reason is
// exit_reason (the stop reason, or a failed call's description) and
// driverExit driver_exit_code, set by the reports that end a run or a call
// only.
func StatusOf(m events.Moment, reason string, driverExit *int) StatusFile {
	status := m.Status
	if !validStatus(status) {
		// Never write a value bmalph rejects (the bash loop's "retrying").
		status = "running"
	}
	return StatusFile{
		Timestamp:          events.ISOTime(m.TS),
		LoopCount:          m.Loop,
		CallsMadeThisHour:  m.CallsThisHour,
		MaxCallsPerHour:    m.MaxCalls,
		LastAction:         m.Action,
		Status:             status,
		ExitReason:         reason,
		NextReset:          m.NextReset,
		DriverExitCode:     driverExit,
		TasksCompleted:     m.TasksCompleted,
		TasksTotal:         m.TasksTotal,
		CallsThisRun:       m.Calls,
		FailedCallsThisRun: m.FailedCalls,
		ActiveDriver:       m.ActiveDriver,
		InputTokens:        m.Totals.InputTokens,
		OutputTokens:       m.Totals.OutputTokens,
		CacheReadTokens:    m.Totals.CacheReadTokens,
		CacheCreateTokens:  m.Totals.CacheCreationTokens,
		CostUSD:            m.Totals.CostUSD,
		QualityGates:       m.QualityGates,
		UsageLimits:        m.UsageLimits,
		Question:           m.Question,
	}
}

// callReason is status.json's exit_reason of a call's end: a failed or
// timed-out call's description, nothing for the others.
func callReason(c events.Call) string {
	if c.Outcome == events.IterationFailed || c.Outcome == events.IterationTimedOut {
		return c.FailureWords()
	}
	return ""
}

// StatusTo is an Observer that hands the status.json content (StatusOf)
// of every report that carries a status to f.
func StatusTo(f func(StatusFile)) observe.Observer { return &status{f: f} }

// status implements every method: each happening carries the moment
// status.json shows, so a new one does not build until it says whether it
// writes the file.
type status struct {
	f func(StatusFile)
}

var _ observe.Observer = (*status)(nil)

// newStatus writes status.json (atomically) for every report that carries
// a status.
func newStatus(d *ralphdir.Dir, onErr func(error)) observe.Observer {
	return StatusTo(func(sf StatusFile) {
		if err := d.WriteJSON(ralphdir.Status, sf); err != nil && onErr != nil {
			onErr(err)
		}
	})
}

// write hands the content at m on, when m carries a status.
func (s *status) write(m events.Moment, reason string, driverExit *int) {
	if m.Status != "" {
		s.f(StatusOf(m, reason, driverExit))
	}
}

func (s *status) RunStarted(m events.Moment, _ events.Start)            { s.write(m, "", nil) }
func (s *status) CallStarted(m events.Moment)                           { s.write(m, "", nil) }
func (s *status) WaitStarted(m events.Moment, _ events.Wait)            { s.write(m, "", nil) }
func (s *status) WaitEnded(m events.Moment, _ events.Wait)              { s.write(m, "", nil) }
func (s *status) LimitHit(m events.Moment, _ events.Wait)               { s.write(m, "", nil) }
func (s *status) BreakerMoved(m events.Moment, _ events.BreakerChange)  { s.write(m, "", nil) }
func (s *status) UsageChanged(m events.Moment)                          { s.write(m, "", nil) }
func (s *status) DriverSwitched(m events.Moment, _ events.DriverSwitch) { s.write(m, "", nil) }
func (s *status) Reviewed(m events.Moment, _ events.Review)             { s.write(m, "", nil) }
func (s *status) CallEnded(m events.Moment, c events.Call) {
	s.write(m, callReason(c), c.DriverExitCode)
}
func (s *status) Stopped(m events.Moment, e events.End) { s.write(m, e.Reason, e.DriverExitCode) }

// The call's progress (progress.json's), the agent's output, what a
// person is told, the usage governor's projection and the trackers' steps
// leave status.json as it is.
func (s *status) CallProgress(events.Moment, events.AgentWorking) {}
func (s *status) UsageProjected(events.Moment, events.Projection) {}
func (s *status) Tracked(events.Moment, events.Task)              {}
func (s *status) Output(time.Time, []byte)                        {}
func (s *status) Warned(time.Time, events.Level, error)           {}
func (s *status) Said(time.Time, events.Notice)                   {}

var spinner = []string{"⠸", "⠋", "⠙", "⠹"}

// progress writes progress.json: the executing form while the agent runs
// (properly JSON-escaped, unlike the bash loop's heredoc), then the
// completed or failed one-liner.
type progress struct {
	observe.Observer
	d     *ralphdir.Dir
	onErr func(error)
	tick  int
}

var _ observe.Observer = (*progress)(nil)

func newProgress(d *ralphdir.Dir, onErr func(error)) *progress {
	return &progress{Observer: observe.Ignore, d: d, onErr: onErr}
}

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

// CallStarted starts the spinner again.
func (p *progress) CallStarted(events.Moment) { p.tick = 0 }

// CallProgress writes the executing form.
func (p *progress) CallProgress(m events.Moment, w events.AgentWorking) {
	p.tick++
	p.write(progressExecuting{"executing", spinner[p.tick%4], int(w.Elapsed / time.Second), clip.Bytes(w.Last, 80), stamp(m)})
}

// CallEnded writes the completed or failed one-liner.
func (p *progress) CallEnded(m events.Moment, c events.Call) {
	switch c.Outcome {
	case events.IterationFailed, events.IterationTimedOut:
		p.write(progressDone{"failed", stamp(m)})
	default:
		p.write(progressDone{"completed", stamp(m)})
	}
}

func stamp(m events.Moment) string { return m.TS.Local().Format(events.LocalStamp) }

func (p *progress) write(v any) {
	if err := p.d.WriteJSON(progressFile, v); err != nil && p.onErr != nil {
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

// metrics appends one line per finished agent call to logs/metrics.jsonl.
// Unlike the bash loop, failed, timed-out and breaker-tripping calls get
// their line too.
type metrics struct {
	observe.Observer
	d     *ralphdir.Dir
	onErr func(error)
}

var _ observe.Observer = (*metrics)(nil)

func newMetrics(d *ralphdir.Dir, onErr func(error)) *metrics {
	return &metrics{Observer: observe.Ignore, d: d, onErr: onErr}
}

// outcomeOf maps an iteration outcome to the bash loop's loop_outcome set.
func outcomeOf(o string) string {
	switch o {
	case "success", "idle", "permission_denied":
		return "success"
	case "api_limit", "circuit_breaker_trip", "read_only_timeout":
		return o
	default:
		return "error"
	}
}

// CallEnded appends the call's line.
func (m *metrics) CallEnded(e events.Moment, c events.Call) {
	it := c.Iteration
	if it == nil {
		return
	}
	l := metricsLine{
		RunID: e.RunID, Loop: e.Loop, Timestamp: events.ISOTime(e.TS), Driver: it.Driver, SessionID: it.SessionID,
		LoopOutcome: outcomeOf(it.Outcome), DurationMS: it.DurationMS, DurationAPIMS: it.DurationAPIMS,
		NumTurns: it.NumTurns, FilesChanged: it.FilesChanged, ReportedFilesModified: it.ReportedFilesModified,
		HasErrors: it.HasErrors, ExitSignal: it.ExitSignal, WasReadOnlyTimeout: it.Outcome == "read_only_timeout",
		QualityGateResult: it.QualityGateResult, HasPermissionDenials: it.HasPermissionDenials,
		CircuitBreakerState: e.BreakerState, WallMS: it.WallMS, DriverExitCode: it.DriverExitCode,
	}
	if l.CircuitBreakerState == "" {
		l.CircuitBreakerState = "UNKNOWN"
	}
	if outcomeOf(it.Outcome) != it.Outcome {
		l.OutcomeDetail = it.Outcome
	}
	if u := it.Usage; u != nil {
		l.InputTokens, l.OutputTokens = &u.InputTokens, &u.OutputTokens
		l.CacheReadTokens, l.CacheCreationTokens = &u.CacheReadTokens, &u.CacheCreationTokens
		l.TotalCostUSD = &u.CostUSD
	}
	if err := m.append(l); err != nil && m.onErr != nil {
		m.onErr(err)
	}
}

// append appends l as one compact JSON line, HTML characters left alone.
func (m *metrics) append(l metricsLine) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(l); err != nil {
		return fmt.Errorf("encode %s: %w", m.d.Path(ralphdir.MetricsLog), err)
	}
	return m.d.AppendLine(ralphdir.MetricsLog, b.String())
}

// newStream returns the event log's writer: each report's line
// (observe.Lines) is written, as one NDJSON line, to logs/events.jsonl
// when d is not nil, and to extra (--events FILE or stdout) when it is not
// nil. Each line is one write on an O_APPEND descriptor, so a reader
// tailing the file only ever sees whole lines.
func newStream(d *ralphdir.Dir, extra io.Writer, onErr func(error)) observe.Observer {
	s := &stream{d: d, extra: extra, onErr: onErr}
	return observe.Lines(s.write)
}

type stream struct {
	d     *ralphdir.Dir
	extra io.Writer
	onErr func(error)
	once  sync.Once
}

func (s *stream) write(e events.Event) {
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

func (s *stream) fail(err error) {
	if s.onErr != nil {
		s.once.Do(func() { s.onErr(err) })
	}
}

// Sinks are the store's observers of the lifecycle, in the order they
// must run: status.json, progress.json, logs/metrics.jsonl and
// logs/events.jsonl (copied to extra, --events, when it is not nil).
// onErr receives their write errors; none stops the loop.
func Sinks(d *ralphdir.Dir, extra io.Writer, onErr func(error)) []observe.Observer {
	return []observe.Observer{newStatus(d, onErr), newProgress(d, onErr), newMetrics(d, onErr), newStream(d, extra, onErr)}
}
