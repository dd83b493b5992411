package config

import (
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"time"

	"github.com/ralphloop/ralph_loop/internal/clip"
)

// A clone's .ralphrc is written by whoever wrote the repository: it must
// not put the dashboard on the network, choose its token, turn on its
// controls, pick the container image the agent runs in (with the agent's
// credentials mounted), or lift the loop's bounds (the output and log
// sizes, the gates' time). Those keys say so in their row
// (keySpec.fromRepo), with one of the rules below; their values come from
// the person: flags, the environment, or a .ralphrc under an absolute
// RALPH_DIR outside the project (see rcTrusted). With a sandbox on, the
// project's NOTIFY_COMMAND does not run either (confineNotify).

// personOnly is the rule of a key a project's .ralphrc may not set at all:
// why is the warning that says so.
func personOnly(why string) func(string) string {
	return func(string) string { return why }
}

// noLift is the rule of a bound a project's .ralphrc may lower but not
// lift: at most max, and not 0 when 0 means no bound at all (zeroLifts).
// how says where the person sets a higher one.
func noLift(key string, max int64, zeroLifts bool, how string) func(string) string {
	return func(v string) string {
		n, ok := parseInt(v)
		if !ok || (n != 0 || !zeroLifts) && n <= max {
			return "" // within the bound, or a bad value its setter reports
		}
		return fmt.Sprintf("%s=%s ignored: a project's .ralphrc may lower this bound, not lift it (at most %d, 0 = no bound is not allowed); %s",
			key, clip.Value(v), max, how)
	}
}

// confineNotify drops a NOTIFY_COMMAND the project's .ralphrc names when a
// sandbox is on: the hook would run outside it, with the person's rights,
// so the sandbox would not confine the repository's code. One warning says
// so; the person's own NOTIFY_COMMAND (flag, environment, their .ralphrc)
// runs as they say.
func (l *loader) confineNotify() {
	c := l.c
	src := c.Sources["NOTIFY_COMMAND"]
	if c.Sandbox == "off" || strings.TrimSpace(c.NotifyCommand) == "" || !c.FromProject("NOTIFY_COMMAND") {
		return
	}
	l.warns = append(l.warns, Warning{File: src.File, Line: src.Line, Msg: fmt.Sprintf(
		"NOTIFY_COMMAND ignored: with SANDBOX=%s a project's .ralphrc cannot run a program outside the sandbox; set NOTIFY_COMMAND in your environment or pass --notify-command", c.Sandbox)})
	c.NotifyCommand = ""
	c.Sources["NOTIFY_COMMAND"] = Source{Kind: SourceDefault}
}

// loopbackOnly is SERVE_ADDR's rule: a project's .ralphrc may name a
// loopback address only.
func loopbackOnly(v string) string {
	host, _, err := net.SplitHostPort(strings.TrimSpace(v))
	if err == nil && loopbackName(host) {
		return ""
	}
	return "SERVE_ADDR=" + clip.Value(v) + " ignored: a project's .ralphrc may only name a loopback address (127.0.0.1:PORT); " +
		"to serve the dashboard to other machines pass --serve/--dashboard HOST:PORT or set SERVE_ADDR in your environment"
}

// loopbackName reports whether host is a loopback address or localhost
// ("" is every interface: not loopback).
func loopbackName(host string) bool {
	h := strings.TrimSuffix(strings.ToLower(strings.Trim(host, "[]")), ".")
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// rcTrusted reports whether the .ralphrc that was read is the person's own:
// one under an absolute RALPH_DIR (set in the environment) outside the
// project. The project's .ralph/.ralphrc and ./.ralphrc never are.
func rcTrusted(rcFile, projectDir string) bool {
	if !filepath.IsAbs(rcFile) || projectDir == "" {
		return false
	}
	rel, err := filepath.Rel(resolved(projectDir), resolved(filepath.Dir(rcFile)))
	return err == nil && (rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)))
}

// resolved is p with its links resolved, or p when that fails.
func resolved(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return filepath.Clean(p)
}

// maxNotifyTimeout caps NOTIFY_TIMEOUT: the run's end waits that long at
// most for its notifiers, and a stop must not wait on a hook for hours.
const maxNotifyTimeout = time.Minute

// capNotifyTimeout lowers a NOTIFY_TIMEOUT above maxNotifyTimeout to it,
// with one warning.
func (l *loader) capNotifyTimeout() {
	c := l.c
	if c.NotifyTimeout <= maxNotifyTimeout {
		return
	}
	l.warns = append(l.warns, Warning{Msg: fmt.Sprintf("NOTIFY_TIMEOUT=%s (%s) is above the cap of %s; using %s (docs/NOTIFY.md)",
		c.NotifyTimeout, c.Sources["NOTIFY_TIMEOUT"].describe(), maxNotifyTimeout, maxNotifyTimeout)})
	c.NotifyTimeout = maxNotifyTimeout
}
