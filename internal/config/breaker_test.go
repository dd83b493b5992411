package config

import (
	"testing"
	"time"

	"github.com/ralphloop/ralph_loop/breaker"
)

func TestBreaker(t *testing.T) {
	c, _ := setup{}.mustLoad(t)
	want := breaker.Config{
		NoProgressThreshold: 3, SameErrorThreshold: 5, OutputDeclineThreshold: 70,
		PermissionDenialThreshold: 2, ReadOnlyTimeoutThreshold: 2, Cooldown: 30 * time.Minute,
	}
	if got := c.Breaker(); got != want {
		t.Errorf("defaults: Breaker() = %+v, want %+v", got, want)
	}

	c = &Config{
		CBNoProgressThreshold: 4, CBSameErrorThreshold: 6, CBOutputDeclineThreshold: 50,
		CBPermissionDenialThreshold: 1, CBReadOnlyTimeoutThreshold: 7, CBCooldownMinutes: 2,
		CBAutoReset: true, PermissionDenialMode: "threshold",
	}
	want = breaker.Config{
		NoProgressThreshold: 4, SameErrorThreshold: 6, OutputDeclineThreshold: 50,
		PermissionDenialThreshold: 1, ReadOnlyTimeoutThreshold: 7, Cooldown: 2 * time.Minute,
		AutoReset: true, CountPermissionDenials: true,
	}
	if got := c.Breaker(); got != want {
		t.Errorf("Breaker() = %+v, want %+v", got, want)
	}
	for _, mode := range []string{"continue", "halt"} {
		c.PermissionDenialMode = mode
		if c.Breaker().CountPermissionDenials {
			t.Errorf("PERMISSION_DENIAL_MODE=%s counts denials", mode)
		}
	}
}
