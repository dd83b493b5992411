package engine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/ralphloop/ralph_loop/drivers"
	"github.com/ralphloop/ralph_loop/internal/agentcall"
	"github.com/ralphloop/ralph_loop/internal/config"
	"github.com/ralphloop/ralph_loop/internal/events"
	"github.com/ralphloop/ralph_loop/internal/ralphdir"
	"github.com/ralphloop/ralph_loop/internal/store"
)

// startup runs the bash loop's start-up checks in order, then takes the
// project lock and loads the persistent state.
func (l *loop) startup() error {
	drv, err := drivers.Get(l.s.Driver)
	if err != nil {
		return startupFailed(events.StartupFailed{Err: err})
	}
	l.drv = drv
	display := l.display()
	l.bus.Note(events.Starting{Agent: display, IgnoredTools: !drv.SupportsAllowedTools() && l.s.ToolsGiven,
		MaxCalls: l.s.MaxCallsPerHour, LogsDir: l.rel(ralphdir.LogsDir), Status: l.rel(ralphdir.Status)})

	if err := l.checkPrompt(); err != nil {
		return err
	}
	if err := l.checkGit(); err != nil {
		return err
	}
	if err := l.checkAgent(); err != nil {
		return err
	}
	l.installedVersion()
	if err := l.checkFallback(); err != nil {
		return err
	}

	if n := l.state.Repair(); n > 0 {
		l.bus.Note(events.TempFilesRemoved{Count: n})
	}
	l.started = true
	l.sessionStep(store.SessionStep{Kind: store.SessionStart})
	l.save(savedStart)
	saved, err := l.state.Load(l.now())
	if err != nil {
		return err
	}
	// From here on the engine keeps the state; a new run starts with no
	// write-timeout mark (Load does not read one: the first save clears it).
	l.kept = saved
	l.brkCfg = l.s.Breaker
	return nil
}

// display is the driver's name as the bash loop shows it.
func (l *loop) display() string {
	if l.drv == nil {
		return l.s.Driver
	}
	return l.drv.DisplayName()
}

// rel shows a .ralph/ path relative to the project when it is inside it.
func (l *loop) rel(name string) string {
	p := l.dir.Path(name)
	if r, err := filepath.Rel(l.s.ProjectDir, p); err == nil && !strings.HasPrefix(r, "..") {
		return r
	}
	return p
}

func (l *loop) checkPrompt() error {
	if l.s.Goal != "" {
		l.goalPlan() // no PROMPT.md, no plan on disk: the goal is both
		return nil
	}
	if l.project.HasPrompt() {
		// One line and exit 1 for a prompt or plan that is a named pipe,
		// a link to a device or too big, before anything reads it.
		if _, err := l.readPromptFile(); err != nil {
			return startupFailed(events.StartupFailed{Err: err})
		}
		data, found, err := l.project.Plan()
		if err != nil {
			return startupFailed(events.StartupFailed{Err: err})
		}
		l.plan.set(data, found)
		return nil
	}
	f := events.StartupFailed{Check: events.PromptMissing, Path: l.s.PromptFile}
	ralph := l.dir.Root()
	if fileExists(filepath.Join(ralph, ralphdir.FixPlan)) || fileExists(filepath.Join(ralph, ralphdir.Agent)) || dirExists(filepath.Join(ralph, ralphdir.Specs)) {
		f.Restore = l.rel(ralphdir.Prompt)
	}
	return startupFailed(f)
}

func (l *loop) checkGit() error {
	if f, ok := repoProblem(l.git, l.s.ProjectDir); !ok {
		return startupFailed(f)
	}
	return nil
}

// CheckGit runs the loop's start-up check of the project's repository r on
// its own (ralph_loop --doctor, and the command line before it writes
// anything): ok when git is there and the project projectDir is a
// repository with a commit, else the check that failed.
func CheckGit(r Repo, projectDir string) (f events.StartupFailed, ok bool) {
	return repoProblem(r, projectDir)
}

// checkAgent makes sure the agent CLI is there: a missing CLI is one clear
// line naming where to get it. It looks on PATH and starts nothing: the
// loop starts the CLI only to make a call, as the bash loop does. Its
// version comes from its install's files (installedVersion) and its own
// output where it carries one (agentVersion); --doctor asks
// `<cli> --version`.
func (l *loop) checkAgent() error {
	o, ok := agentCheckOptions(l.s, l.drv, l.deps.LookPath)
	if !ok {
		return startupFailed(events.StartupFailed{Check: events.NoAgentCommand})
	}
	res, err := drivers.Check(l.ctx, l.drv, o)
	if err != nil {
		return startupFailed(events.StartupFailed{Err: err})
	}
	l.agentPath = res.Path
	return nil
}

// installedVersion takes the version the agent CLI's install says
// (agentcall.Installed: Claude Code's npm package.json, or its native
// installer's folder of versions), before the first call, starting
// nothing: the first calls are built for it, as for the version the
// CLI's own output says (agentVersion), which wins once it comes. An
// install that does not say is an unknown version, as before.
func (l *loop) installedVersion() {
	in := l.deps.Agent.Installed(l.drv, l.agentPath)
	l.takeVersion(in.Version, installedFrom(in))
}

// InstalledVersion is the version the install of drv's CLI, found at
// path, says (agentcall.Installed), and where, in words; "", "" when it
// does not say. The start-up reads it (installedVersion); --doctor shows
// it beside what `<cli> --version` says.
func InstalledVersion(drv drivers.Driver, path string) (version, from string) {
	in := agentcall.Installed(drv, path)
	return in.Version, installedFrom(in)
}

// installedFrom says where an install said its version ("" for none).
func installedFrom(in drivers.Installed) string {
	if in.Via == drivers.ViaNative {
		return "the native installer's " + in.File
	}
	return in.File
}

// agentCheckOptions is how the start-up check finds the agent CLI (on
// PATH, starting nothing); false when the command driver has no command.
func agentCheckOptions(s config.Config, drv drivers.Driver, lookPath func(string) (string, error)) (drivers.CheckOptions, bool) {
	o := drivers.CheckOptions{LookPath: lookPath}
	if drv.Traits().MinVersionSetting {
		o.MinVersion = s.MinVersion
	}
	if drv.Binary() == "" { // the command driver: AGENT_COMMAND names it
		if len(s.AgentArgv) == 0 {
			return o, false
		}
		o.Binary = s.AgentArgv[0]
	}
	return o, true
}

// CheckAgent is ralph_loop --doctor's check of the agent CLI: where it is,
// its version, and a warning when that version is too old. It runs
// `<cli> --version` (10 s at most), the one start of an agent CLI that is
// not a call, and only --doctor asks for it; the command driver's CLI is
// only looked for. With fallback it checks FALLBACK_DRIVER's CLI, and a
// missing one names FALLBACK_DRIVER.
func CheckAgent(ctx context.Context, s config.Config, lookPath func(string) (string, error), fallback bool) (drivers.Driver, drivers.CheckResult, error) {
	key := "PLATFORM_DRIVER"
	if fallback {
		s.Driver, key = s.FallbackDriver, "FALLBACK_DRIVER"
	}
	drv, o, err := findOptions(s, lookPath, key)
	if err != nil {
		return drv, drivers.CheckResult{}, err
	}
	if drv.Binary() != "" {
		o.Version = agentcall.Version
	}
	res, err := drivers.Check(ctx, drv, o)
	return drv, res, err
}

// findAgent finds the CLI of s.Driver on PATH, starting nothing, as the
// loop's start-up check does (the fallback's CLI at start-up).
func findAgent(ctx context.Context, s config.Config, lookPath func(string) (string, error), key string) (drivers.Driver, drivers.CheckResult, error) {
	drv, o, err := findOptions(s, lookPath, key)
	if err != nil {
		return drv, drivers.CheckResult{}, err
	}
	res, err := drivers.Check(ctx, drv, o)
	return drv, res, err
}

// findOptions is how the CLI of s.Driver, which the setting key chose, is
// found: a missing CLI, or the command driver without AGENT_COMMAND, names
// key.
func findOptions(s config.Config, lookPath func(string) (string, error), key string) (drivers.Driver, drivers.CheckOptions, error) {
	drv, err := drivers.Get(s.Driver)
	if err != nil {
		return nil, drivers.CheckOptions{}, err
	}
	o, ok := agentCheckOptions(s, drv, lookPath)
	if !ok {
		return drv, o, errors.New(key + "=command needs AGENT_COMMAND (set it in .ralph/.ralphrc, e.g. AGENT_COMMAND=\"my-agent --flag\")")
	}
	o.Key = key
	return drv, o, nil
}

func dirExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// Precheck runs the start-up checks that need nothing written first — the
// prompt file, the project's repository and the agent CLI on PATH — so that
// a start that is bound to fail stops before the loop creates a folder, a
// lock, a log line or status.json. It returns the same *StartupError the
// run would.
func Precheck(s config.Config, dir *ralphdir.Dir, project Project, repo Repo, lookPath func(string) (string, error)) error {
	l := &loop{s: s, dir: dir, project: project, git: repo}
	if err := l.checkPrompt(); err != nil {
		return err
	}
	if err := l.checkGit(); err != nil {
		return err
	}
	drv, err := drivers.Get(s.Driver)
	if err != nil {
		return nil // the run reports it
	}
	l.drv, l.ctx, l.deps.LookPath = drv, context.Background(), lookPath
	return l.checkAgent()
}
