package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/ralphloop/ralph_loop/internal/config"
	"github.com/ralphloop/ralph_loop/internal/events"
	"github.com/ralphloop/ralph_loop/internal/notify"
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
		Text:     events.Event.Headline,
		Log:      log,
		Warn:     warn,
		LookPath: exec.LookPath,
	}
}

// notifyChecks are --doctor's lines for the notifiers: each configured one
// looked at without sending anything, or with --notify-test sent a test
// notification. None configured: no line, unless a test was asked for.
func notifyChecks(cfg *config.Config, test bool, cwd string, lookPath func(string) (string, error)) []check {
	nc := notifyConfig(cfg, cwd, nil, nil)
	nc.LookPath = lookPath
	if src := cfg.Sources["NOTIFY_WEBHOOK"]; src.FromRepository() {
		nc.WebhookFrom = src.String()
	}
	configured := len(nc.Command) > 0 || nc.Webhook != "" || nc.Desktop
	if !configured {
		if test {
			return []check{bad("notify: no notifier configured to test; set NOTIFY_COMMAND, NOTIFY_WEBHOOK or NOTIFY_DESKTOP=true (docs/NOTIFY.md)")}
		}
		return nil
	}
	var out []check
	if unknown := notify.Unknown(cfg.NotifyOn); len(unknown) > 0 {
		out = append(out, bad("notify: NOTIFY_ON names %s, which this version never emits; see docs/NOTIFY.md for the event names", strings.Join(unknown, ", ")))
	}
	for _, r := range notify.Checks(nc, test) {
		switch {
		case r.Skipped:
			out = append(out, skip("notify: %s: %s", r.Notifier, r.Detail))
		case r.OK:
			out = append(out, good("notify: %s: %s", r.Notifier, r.Detail))
		default:
			out = append(out, bad("notify: %s: %s", r.Notifier, r.Detail))
		}
	}
	return out
}

// signalDrain bounds the wait for the notifiers after a stop signal: the
// person who pressed Ctrl+C (or the service manager) waits for the exit.
const signalDrain = 1500 * time.Millisecond

// drainCuts shortens the notifiers' drain at each stop signal, the one
// that ended the run included: the first to signalDrain, any later one to
// zero. The returned function stops it.
func drainCuts(sig *signals) (<-chan time.Duration, func()) {
	cut, done := make(chan time.Duration), make(chan struct{})
	go func() {
		d := signalDrain
		for {
			select {
			case <-done:
				return
			case <-sig.stops:
			}
			select {
			case <-done:
				return
			case cut <- d:
			}
			d = 0
		}
	}()
	return cut, func() { close(done) }
}

// drainBound is how long the run's end waits for the notifiers.
func drainBound(timeout time.Duration, stop events.Stop) time.Duration {
	if stop.Kind == events.StopSignal {
		return min(timeout, signalDrain)
	}
	return timeout
}
