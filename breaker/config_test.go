package breaker

import "time"

// defaultConfig is the breaker's settings with nothing configured: the
// defaults the config package resolves when .ralphrc, the environment and
// the flags say nothing.
func defaultConfig() Config {
	return Config{
		NoProgressThreshold:       3,
		SameErrorThreshold:        5,
		OutputDeclineThreshold:    70,
		PermissionDenialThreshold: 2,
		ReadOnlyTimeoutThreshold:  2,
		Cooldown:                  30 * time.Minute,
	}
}
