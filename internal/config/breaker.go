package config

import "github.com/ralphloop/ralph_loop/breaker"

// Breaker is the circuit breaker's view of the configuration: the CB_*
// thresholds, the cooldown, the auto-reset switch, and whether permission
// denials count towards a trip (only in PERMISSION_DENIAL_MODE=threshold).
// It is the one place that maps configuration keys to breaker settings.
func (c *Config) Breaker() breaker.Config {
	return breaker.Config{
		NoProgressThreshold:       c.CBNoProgressThreshold,
		SameErrorThreshold:        c.CBSameErrorThreshold,
		OutputDeclineThreshold:    c.CBOutputDeclineThreshold,
		PermissionDenialThreshold: c.CBPermissionDenialThreshold,
		ReadOnlyTimeoutThreshold:  c.CBReadOnlyTimeoutThreshold,
		Cooldown:                  c.CBCooldown(),
		AutoReset:                 c.CBAutoReset,
		CountPermissionDenials:    c.PermissionDenialMode == "threshold",
	}
}
