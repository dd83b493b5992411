package notify

import (
	"os"
	"runtime"
	"strings"
)

// targets lists the configured notifiers: the command hook, the webhook
// and the desktop notice (when the system has a way to show one).
func targets(cfg Config) []target {
	if cfg.Timeout <= 0 {
		cfg.Timeout = defaultTimeout
	}
	env := cfg.Env
	if env == nil {
		env = os.Environ()
	}
	var ts []target
	if len(cfg.Command) > 0 {
		ts = append(ts, &command{argv: cfg.Command, env: env, dir: cfg.Dir, project: cfg.Project, timeout: cfg.Timeout, label: "command", stdin: true})
	}
	if cfg.Webhook != "" {
		ts = append(ts, newWebhook(cfg.Webhook, cfg.Timeout))
	}
	if cfg.Desktop {
		if d := desktop(cfg, env); d != nil {
			ts = append(ts, d)
		}
	}
	return ts
}

// desktop is the desktop notice as a command, or nil where there is no
// way to show one.
func desktop(cfg Config, env []string) *command {
	goos, lookPath := cfg.GOOS, cfg.LookPath
	if goos == "" {
		goos = runtime.GOOS
	}
	if lookPath == nil || !graphical(goos, env) {
		return nil
	}
	argv := desktopArgv(goos, lookPath)
	if argv == nil {
		return nil
	}
	title := "ralph_loop"
	if cfg.Project != "" {
		title += " · " + cfg.Project
	}
	return &command{argv: argv(title, ""), env: env, dir: cfg.Dir, project: cfg.Project, timeout: cfg.Timeout, label: "desktop",
		build: func(m message) []string { return argv(title, m.headline) }}
}

// graphical reports whether a desktop notice can be seen: on macOS and
// Windows always; elsewhere only in a desktop session (a display or a
// session bus in the environment), not on a server or in a container.
func graphical(goos string, env []string) bool {
	if goos == "darwin" || goos == "windows" {
		return true
	}
	for _, kv := range env {
		for _, name := range []string{"DISPLAY=", "WAYLAND_DISPLAY=", "DBUS_SESSION_BUS_ADDRESS="} {
			if strings.HasPrefix(kv, name) && len(kv) > len(name) {
				return true
			}
		}
	}
	return false
}
