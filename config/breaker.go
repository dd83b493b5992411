package config

import "github.com/ralphloop/ralph_loop/breaker"

// Breaker is the circuit breaker's view of the configuration, for the loop
// and for --circuit-status alike.
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
