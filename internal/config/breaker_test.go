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
	if got := c.Breaker; got != want {
		t.Errorf("defaults: Breaker = %+v, want %+v", got, want)
	}

	c, _ = setup{rc: "CB_NO_PROGRESS_THRESHOLD=4\nCB_SAME_ERROR_THRESHOLD=6\nCB_OUTPUT_DECLINE_THRESHOLD=50\n" +
		"CB_PERMISSION_DENIAL_THRESHOLD=1\nCB_READ_ONLY_TIMEOUT_THRESHOLD=7\nCB_COOLDOWN_MINUTES=2\n" +
		"CB_AUTO_RESET=true\nPERMISSION_DENIAL_MODE=threshold\n"}.mustLoad(t)
	want = breaker.Config{
		NoProgressThreshold: 4, SameErrorThreshold: 6, OutputDeclineThreshold: 50,
		PermissionDenialThreshold: 1, ReadOnlyTimeoutThreshold: 7, Cooldown: 2 * time.Minute,
		AutoReset: true, CountPermissionDenials: true,
	}
	if got := c.Breaker; got != want {
		t.Errorf("Breaker = %+v, want %+v", got, want)
	}
	for _, mode := range []string{"continue", "halt"} {
		c, _ = setup{env: map[string]string{"PERMISSION_DENIAL_MODE": mode}}.mustLoad(t)
		if c.Breaker.CountPermissionDenials {
			t.Errorf("PERMISSION_DENIAL_MODE=%s counts denials", mode)
		}
	}
}
