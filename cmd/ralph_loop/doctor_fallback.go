package main

import (
	"context"

	"github.com/ralphloop/ralph_loop/internal/config"
	"github.com/ralphloop/ralph_loop/internal/engine"
)

// fallbackChecks: FALLBACK_DRIVER's CLI, as the loop's start-up check
// finds it, and its login; nothing when no fallback is configured.
func fallbackChecks(cfg *config.Config, env doctorEnv) []check {
	if cfg.FallbackDriver == "" {
		return nil
	}
	drv, res, err := engine.CheckAgent(context.Background(), *cfg, env.lookPath, true)
	return agentLines("fallback ", cfg.FallbackDriver, drv, res, err, env)
}
