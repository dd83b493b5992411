package engine_test

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/ralphloop/ralph_loop/engine"
	"github.com/ralphloop/ralph_loop/events"
	"github.com/ralphloop/ralph_loop/supervise"
)

// The 5-hour usage limit: an unattended run
// never exits on it. It waits — 60 minutes, or until the reset time the
// agent reported — then tries again; status.json says paused / api_limit
// meanwhile, and the failure guard does not count it.
func TestUsageLimitWaitsThenRetries(t *testing.T) {
	for _, tc := range []struct {
		name string
		out  string
		wait time.Duration
	}{
		{"text from the agent", `{"type":"result","subtype":"success","is_error":true,"result":"Claude AI usage limit reached","session_id":"s1"}`, time.Hour},
		{"structured with reset time", `{"type":"rate_limit_event","rate_limit_info":{"status":"rejected","resetsAt":946692000,"rateLimitType":"five_hour"}}
{"type":"result","subtype":"success","is_error":true,"api_error_status":429,"result":"You've hit your session limit","session_id":"s1"}`, 2*time.Hour + 5*time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				// synctest's clock starts at 2000-01-01 00:00 UTC; 946692000 is 02:00.
				h := newCtlHarness(t, false, func(n int) ctlReply {
					if n == 1 {
						return ctlReply{Raw: tc.out, Outcome: &supervise.Outcome{ExitCode: 1, Reason: supervise.Exited}}
					}
					return ctlReply{Text: "Did a task.", Check: true, Touch: "src/app.txt"}
				})
				start := time.Now()
				r := h.run(h.settings(map[string]string{"LOOP_DELAY": "0", "MAX_CONSECUTIVE_FAILURES": "1"}))
				h.checkEnd(r, engine.ExitComplete, "plan_complete", "completed")
				if got := h.callCount(); got != 3 {
					t.Fatalf("calls = %d, want 3 (the limited one, then two tasks)", got)
				}
				lim := h.rec.ofType(events.UsageLimited)
				if len(lim) != 1 || lim[0].Action != "api_limit" || lim[0].Status != "paused" {
					t.Fatalf("usage_limited events = %+v", lim)
				}
				var waited time.Duration
				for _, w := range h.rec.waits() {
					if w.Kind == "usage_limit" {
						waited = w.Delay
					}
				}
				if waited != tc.wait {
					t.Errorf("usage-limit wait = %s, want %s", waited, tc.wait)
				}
				if elapsed := time.Since(start); elapsed < tc.wait {
					t.Errorf("the run took %s of virtual time, less than the wait", elapsed)
				}
				// MAX_CONSECUTIVE_FAILURES=1: had the guard counted the limit,
				// the run would have ended with exit 3 after call 1.
			})
		})
	}
}
