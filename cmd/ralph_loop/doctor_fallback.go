package main

import (
	"context"
	"fmt"

	"github.com/ralphloop/ralph_loop/config"
	"github.com/ralphloop/ralph_loop/engine"
)

// fallbackChecks: FALLBACK_DRIVER's CLI, as the loop's start-up check
// finds it, and its login; nothing when no fallback is configured.
func fallbackChecks(cfg *config.Config, env doctorEnv) []check {
	if cfg.FallbackDriver == "" {
		return nil
	}
	drv, res, err := engine.CheckFallbackAgent(context.Background(), engine.SettingsFrom(cfg, env.cwd), env.lookPath)
	if err != nil {
		return []check{bad("fallback agent: %v", err)}
	}
	name := drv.DisplayName()
	line := fmt.Sprintf("fallback agent: %s found at %s", name, res.Path)
	if res.Version != "" {
		line = fmt.Sprintf("fallback agent: %s %s found at %s", name, res.Version, res.Path)
	}
	if res.Warning != "" {
		line += " (warning: " + res.Warning + ")"
	}
	if cfg.FallbackDriver == "command" {
		return []check{good("%s", line)}
	}
	login := loginCheck(cfg.FallbackDriver, name, env)
	login.text = "fallback " + login.text
	return []check{good("%s", line), login}
}
