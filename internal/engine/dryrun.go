package engine

import (
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/ralphloop/ralph_loop/internal/config"
	"github.com/ralphloop/ralph_loop/internal/events"
	"github.com/ralphloop/ralph_loop/internal/fixplan"
	"github.com/ralphloop/ralph_loop/ratelimit"
)

// Preview is what the next iteration would do: the call it would make and
// the state that decides whether and when it is made. DryRun fills it.
type Preview struct {
	Driver string `json:"driver"`
	// AgentPath is the agent CLI the start-up check found on PATH (and
	// did not start): what a run starts, once per call.
	AgentPath string `json:"agent_path"`
	// CLIVersion is its version as its install's files say it (Claude
	// Code's package.json or native installer; omitted when unknown), and
	// CLIVersionFrom where, in words: the call is built for it.
	CLIVersion     string   `json:"cli_version,omitempty"`
	CLIVersionFrom string   `json:"cli_version_from,omitempty"`
	Argv           []string `json:"argv"`
	Dir            string   `json:"dir"`
	// EnvAdded is the environment the call adds to (or changes in) the
	// loop's own, as NAME=VALUE.
	EnvAdded    []string `json:"env_added"`
	Stdin       int      `json:"stdin_bytes"` // the bytes written to its stdin (0: /dev/null)
	Format      string   `json:"output_format"`
	Loop        int      `json:"loop"`
	PromptFile  string   `json:"prompt_file"`
	Prompt      string   `json:"prompt"`
	Context     string   `json:"context"`
	SessionID   string   `json:"session_id,omitempty"` // the session the call would resume
	NextTask    string   `json:"next_task,omitempty"`
	TasksLeft   int      `json:"tasks_left"`
	TasksTotal  int      `json:"tasks_total"`
	HavePlan    bool     `json:"have_plan"`
	Breaker     string   `json:"breaker_state"`
	BreakerOK   bool     `json:"breaker_allows_call"`
	NoProgress  int      `json:"breaker_no_progress"`
	SameError   int      `json:"breaker_same_error"`
	Calls       int      `json:"calls_this_hour"`
	MaxCalls    int      `json:"max_calls_per_hour"`
	NextReset   string   `json:"next_reset"`
	Paused      bool     `json:"paused"`
	ExitReason  string   `json:"exit_reason,omitempty"` // the loop would stop before calling, for this reason
	Waits       []Wait   `json:"waits"`
	WouldCall   bool     `json:"would_call"`
	WouldStopAs string   `json:"would_stop,omitempty"`
}

// Wait is one wait that would come before the call.
type Wait struct {
	Kind  string    `json:"kind"` // rate_limit, pause
	Until time.Time `json:"until,omitzero"`
}

// DryRun runs the start-up checks and builds the next iteration's call as
// Run would, without running it. deps.State must load the state without
// writing it (a copy), and deps.Keeper should save nothing
// (Discard): the changes the checks make are saved nowhere, so
// nothing under .ralph/ is written.
//
// A failed check or a call that cannot be built is noted to the observers as in
// a run (its value words it) and returned.
func DryRun(s config.Config, deps Deps) (Preview, error) {
	l := newLoop(s, deps)
	p, err := l.preview()
	if err != nil {
		var se *StartupError
		if errors.As(err, &se) {
			l.bus.Note(se.Failed)
		} else {
			l.bus.Warned(time.Time{}, events.Error, err)
		}
	}
	return p, err
}

func (l *loop) preview() (Preview, error) {
	if err := l.startup(); err != nil {
		return Preview{}, err
	}
	l.n = 1
	l.rollWindow()
	l.breakerStartup()
	p := Preview{Driver: l.s.Driver, AgentPath: l.agentPath, CLIVersion: l.cliVersion, CLIVersionFrom: l.cliFrom, Loop: l.n, PromptFile: l.s.PromptFile,
		Breaker: l.kept.Breaker.State, BreakerOK: l.kept.Breaker.Err(l.brkCfg) == nil, NoProgress: l.kept.Breaker.ConsecutiveNoProgress, SameError: l.kept.Breaker.ConsecutiveSameError,
		Calls: l.kept.Window.Count, MaxCalls: l.s.MaxCallsPerHour, NextReset: ratelimit.NextResetClock(l.now()),
		Paused: paused(l.dir), HavePlan: l.plan.found, Waits: []Wait{}, EnvAdded: []string{}}
	if l.goal() {
		p.PromptFile = "--goal" // the goal's prompt, made in memory
	}
	if l.plan.found {
		counts := fixplan.Count(l.plan.data)
		p.NextTask, p.TasksLeft, p.TasksTotal = fixplan.NextTask(l.plan.data), counts.Unchecked, counts.Total()
	}
	l.previewWaits(&p)

	c := &call{started: l.now(), calls: l.kept.Window.Count + 1}
	if l.s.SessionContinuity && l.drv.SupportsSessions() {
		c.sessionID, _ = l.state.ResumeID(l.now(), l.s.SessionExpiry)
	}
	l.lastSummary = l.kept.DiffSummary
	p.SessionID = c.sessionID
	p.Context = l.loopContext(c)
	if l.liveOK && l.format == "text" {
		l.format = "json"
	}
	if l.liveOK && !l.drv.SupportsLive() {
		l.liveOK = false
	}
	spec, err := l.buildCommand(c, p.Context)
	if err != nil {
		return Preview{}, err
	}
	prompt, err := l.readPrompt()
	if err != nil {
		return Preview{}, err
	}
	p.Prompt = prompt
	p.Argv, p.Dir, p.Stdin, p.Format = spec.Argv, spec.Dir, len(spec.Stdin), spec.Format
	for _, kv := range spec.Env {
		if !slices.Contains(l.deps.Env, kv) {
			p.EnvAdded = append(p.EnvAdded, kv)
		}
	}
	return p, nil
}

// previewWaits fills in what would come before the call: a stop (breaker
// open, plan complete), a rate-limit wait, a pause.
func (l *loop) previewWaits(p *Preview) {
	switch {
	case !p.BreakerOK:
		p.WouldStopAs = "circuit_breaker_open"
	case !l.kept.Window.Allow(l.now(), l.s.MaxCallsPerHour):
		p.Waits = append(p.Waits, Wait{Kind: "rate_limit", Until: ratelimit.NextReset(l.now())})
	}
	if p.WouldStopAs == "" {
		p.ExitReason = l.exitReason()
		p.WouldStopAs = p.ExitReason
	}
	if p.Paused {
		p.Waits = append(p.Waits, Wait{Kind: "pause"})
	}
	p.WouldCall = p.WouldStopAs == ""
}

// readPrompt is the prompt as the driver gets it.
func (l *loop) readPrompt() (string, error) {
	b, err := l.readPromptFile()
	if err != nil {
		return "", err
	}
	return strings.TrimRight(string(b), "\n"), nil
}
