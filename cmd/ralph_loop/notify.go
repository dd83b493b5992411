package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/ralphloop/ralph_loop/config"
	"github.com/ralphloop/ralph_loop/console"
	"github.com/ralphloop/ralph_loop/events"
	"github.com/ralphloop/ralph_loop/notify"
	"github.com/ralphloop/ralph_loop/ralphdir"
)

// notifyConfig is the notifiers' part of the configuration. Hooks write
// their output to logs/hooks.log through log (nil: nowhere).
func notifyConfig(cfg *config.Config, cwd string, log func(string), warn func(string)) notify.Config {
	project := strings.TrimSpace(cfg.ProjectName)
	if project == "" {
		project = filepath.Base(cwd)
	}
	return notify.Config{
		On:       cfg.NotifyOn,
		Command:  cfg.NotifyArgv,
		Webhook:  cfg.NotifyWebhook,
		Desktop:  cfg.NotifyDesktop,
		Timeout:  cfg.NotifyTimeout,
		Project:  project,
		Dir:      cwd,
		Env:      os.Environ(),
		Text:     console.Headline,
		Log:      log,
		Warn:     warn,
		LookPath: exec.LookPath,
	}
}

// wireNotify adds the notifiers to bus when any is configured, and returns
// them (nil for none) for the run's end to drain.
func wireNotify(cfg *config.Config, bus *events.Bus, dir *ralphdir.Dir, cwd string) *notify.Notifier {
	warn := func(msg string) { bus.Warnf("%s", msg) }
	log := func(block string) { _ = dir.AppendLine(ralphdir.HooksLog, block) }
	nc := notifyConfig(cfg, cwd, log, warn)
	n := notify.New(nc)
	if n == nil {
		return nil
	}
	for _, name := range notify.Select(cfg.NotifyOn).Unknown() {
		warn("NOTIFY_ON: '" + name + "' is not an event type this version emits (docs/NOTIFY.md lists them); it selects nothing")
	}
	bus.Add(n)
	return n
}
