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
// controls, or pick the container image the agent runs in (with the agent's
// credentials mounted). Those keys say so in their row (keySpec.fromRepo),
// with one of the rules below; their values come from the person: flags,
// the environment, or a .ralphrc under an absolute RALPH_DIR outside the
// project (see rcTrusted).

// personOnly is the rule of a key a project's .ralphrc may not set at all:
// why is the warning that says so.
func personOnly(why string) func(string) string {
	return func(string) string { return why }
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
