package engine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/ralphloop/ralph_loop/drivers"
	"github.com/ralphloop/ralph_loop/events"
	"github.com/ralphloop/ralph_loop/guard"
	"github.com/ralphloop/ralph_loop/ralphdir"
)

// errNoStatus marks start-up failures that must not touch status.json
// (another loop owns it, or there is no .ralph/ to write into).
var errNoStatus = errors.New("no status")

// startup runs the bash loop's start-up checks in order, then takes the
// project lock and loads the persistent state.
func (l *loop) startup() error {
	drv, err := drivers.Get(l.s.Driver)
	if err != nil {
		return &StartupError{Lines: []string{err.Error()}}
	}
	l.drv = drv
	display := l.display()
	if !drv.SupportsAllowedTools() && l.s.ToolsGiven {
		l.bus.Warnf("ALLOWED_TOOLS/--allowed-tools is ignored by %s.", display)
	}
	l.bus.Successf("🚀 Ralph loop starting with %s", display)
	l.bus.Infof("Max calls per hour: %d", l.s.MaxCallsPerHour)
	l.bus.Infof("Logs: %s/ | Docs: %s/ | Status: %s", l.rel(ralphdir.LogsDir), l.rel(ralphdir.DocsGenerated), l.rel(ralphdir.Status))

	if err := l.checkPrompt(); err != nil {
		return err
	}
	if err := l.checkGit(); err != nil {
		return err
	}
	if err := l.checkAgent(); err != nil {
		return err
	}

	if n := l.state.Repair(); n > 0 {
		l.bus.Infof("Removed %d temp file(s) left by an interrupted write", n)
	}
	l.bus.Record(events.WriteTimeoutCleared{})
	l.started = true
	if err := l.bus.Record(events.SessionStarted{At: l.now()}); err != nil {
		l.bus.Warnf("%v", err)
	}
	saved, err := l.state.Load()
	if err != nil {
		return err
	}
	l.window, l.brk = saved.Window, saved.Breaker
	l.exitSignals, l.haveExitSignals = saved.ExitSignals, saved.HaveExitSignals
	l.lastAnalysis, l.errHist, l.lastOutputLen = saved.Analysis, saved.ErrorHistory, saved.OutputLength
	l.gateResults, l.findings, l.reviewSHA = saved.Gates, saved.Findings, saved.ReviewSHA
	l.pendingSummary = saved.DiffSummary
	l.brkCfg = l.s.Breaker
	max := l.s.MaxConsecutiveFailures
	if max <= 0 {
		max = math.MaxInt32 // MAX_CONSECUTIVE_FAILURES=0: never give up
	}
	l.guard = guard.New(max)
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
	p := l.promptPath()
	if fileExists(p) {
		// One line and exit 1 for a prompt or plan that is a named pipe,
		// a link to a device or too big, before anything reads it.
		if _, err := ralphdir.ReadFileCapped(p, ralphdir.TextCap); err != nil {
			return &StartupError{Lines: []string{err.Error()}}
		}
		data, found, err := l.dir.ReadFile(ralphdir.FixPlan)
		if err != nil {
			return &StartupError{Lines: []string{err.Error()}}
		}
		l.plan, l.havePlan, l.planFresh = data, found, true
		return nil
	}
	shown := l.s.PromptFile
	lines := []string{fmt.Sprintf("Prompt file '%s' not found!", shown), ""}
	ralph := l.dir.Root()
	if fileExists(filepath.Join(ralph, ralphdir.FixPlan)) || fileExists(filepath.Join(ralph, ralphdir.Agent)) || dirExists(filepath.Join(ralph, ralphdir.Specs)) {
		lines = append(lines,
			fmt.Sprintf("This appears to be a bmalph/Ralph project but is missing %s.", l.rel(ralphdir.Prompt)),
			"You may need to create or restore the PROMPT.md file.")
	} else {
		lines = append(lines, "This directory is not a bmalph/Ralph project.")
	}
	lines = append(lines, "",
		"To fix this:",
		"  1. Set up this project for bmalph: bmalph init",
		"  2. Restore the Ralph files after an update: bmalph upgrade",
		"  3. Turn planning output into a Ralph plan: bmalph implement",
		"  4. Or change to the directory of an existing Ralph project",
		"  5. Or create the files yourself (ralph_loop's install.sh --project DIR adds templates)",
		"",
		"Ralph projects should contain: .ralph/PROMPT.md, .ralph/@fix_plan.md, .ralph/specs/, src/, etc.")
	return &StartupError{Lines: lines}
}

func (l *loop) checkGit() error {
	ctx := context.Background()
	if !l.git.available() {
		return &StartupError{Lines: []string{"git is not installed or not on PATH. Install git (e.g. apt-get install git) and retry."}}
	}
	if !l.git.isRepo(ctx) {
		return &StartupError{Lines: []string{
			fmt.Sprintf("No git repository found in %s.", l.s.ProjectDir),
			"Ralph tracks progress with git. Create one with: git init && git add -A && git commit -m 'initial commit'",
		}}
	}
	if l.git.head(ctx) == "" {
		return &StartupError{Lines: []string{
			"Git repository has no commits.",
			"Ralph compares each loop's changes against HEAD. Make a first commit: git add -A && git commit -m 'initial commit'",
		}}
	}
	return nil
}

// checkAgent makes sure the agent CLI is there (and, for Claude Code, new
// enough): a missing CLI is one clear line naming where to get it.
func (l *loop) checkAgent() error {
	o := drivers.CheckOptions{LookPath: l.deps.LookPath, Version: cliVersion}
	if l.s.Driver == "claude-code" {
		o.MinVersion = l.s.MinVersion
	}
	if l.s.Driver == "command" {
		if len(l.s.AgentArgv) == 0 {
			return &StartupError{Lines: []string{"PLATFORM_DRIVER=command needs AGENT_COMMAND (e.g. AGENT_COMMAND=\"my-agent --flag\" in .ralph/.ralphrc)"}}
		}
		o.Binary, o.Version = l.s.AgentArgv[0], nil
	}
	res, err := drivers.Check(l.ctx, l.drv, o)
	if err != nil {
		return &StartupError{Lines: []string{err.Error()}}
	}
	if res.Warning != "" {
		l.bus.Warnf("%s", res.Warning)
	}
	l.cliVersion = res.Version
	if res.Version != "" {
		l.bus.Debugf("%s %s at %s", l.display(), res.Version, res.Path)
	}
	return nil
}

// cliVersion runs `<path> --version` (10 s at most).
func cliVersion(ctx context.Context, path string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, "--version")
	cmd.Stdin = nil
	out, err := cmd.Output()
	return strings.TrimSpace(string(out)), err
}

func dirExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}
