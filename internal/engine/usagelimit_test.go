package engine_test

import (
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/ralphloop/ralph_loop/internal/engine"
	"github.com/ralphloop/ralph_loop/internal/events"
	"github.com/ralphloop/ralph_loop/internal/fakeagent"
	"github.com/ralphloop/ralph_loop/internal/supervise"
)

// The 5-hour usage limit: an unattended run
// never exits on it. It waits — 60 minutes, or until the reset time the
// agent reported — then tries again; status.json says paused / api_limit
// meanwhile, and the failure guard does not count it.
func TestUsageLimitWaitsThenRetries(t *testing.T) {
	t.Parallel()
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
			t.Parallel()
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

// rateLine is a Claude rate_limit_event; reply is a successful call's
// stream: that event, then the result with a status block.
func rateLine(status, window string, resetsAt int64, utilization float64) string {
	return fmt.Sprintf(`{"type":"rate_limit_event","rate_limit_info":{"status":%q,"resetsAt":%d,"rateLimitType":%q,"utilization":%v}}`, status, resetsAt, window, utilization)
}

func reply(rate string, n int) string {
	return rate + "\n" + fakeagent.ClaudeJSON("Did a task.\n"+fakeagent.StatusBlock("IN_PROGRESS", false, 1), fmt.Sprintf("sess-%d", n)) + "\n"
}

// synctest's clock starts at 2000-01-01 00:00 UTC.
var bubbleStart = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// local is a reset time as the console words it: in the machine's zone.
func local(t time.Time) string { return t.Local().Format("2006-01-02 15:04 MST") }

// A usage limit whose reset is further away than USAGE_LIMIT_MAX_WAIT
// (6 h by default) is not waited for: the run stops with exit 8, and
// exit_reason and status.json's usage_limits name the window and its reset.
func TestUsageLimitTooFarStops(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		reset := bubbleStart.Add(72 * time.Hour)
		h := newCtlHarness(t, false, func(n int) ctlReply {
			return ctlReply{Raw: rateLine("rejected", "seven_day", reset.Unix(), 1) + "\n" +
				`{"type":"result","subtype":"success","is_error":true,"result":"Weekly limit reached","session_id":"s1"}`,
				Outcome: &supervise.Outcome{ExitCode: 1, Reason: supervise.Exited}}
		})
		r := h.run(h.settings(map[string]string{"LOOP_DELAY": "0"}))
		h.checkEnd(r, engine.ExitUsageLimit, "usage_limit_max_wait (seven_day resets 2000-01-04T00:00:00Z)", "stopped")
		if h.callCount() != 1 {
			t.Fatalf("calls = %d, want 1", h.callCount())
		}
		for _, w := range h.rec.waits() {
			if w.Kind == "usage_limit" {
				t.Errorf("waited %s for a reset past the max wait", w.Delay)
			}
		}
		st := h.status()
		if len(st.UsageLimits) != 1 || st.UsageLimits[0].Window != "seven_day" || st.UsageLimits[0].Status != "rejected" ||
			st.UsageLimits[0].ResetsAt == nil || !st.UsageLimits[0].ResetsAt.Equal(reset) {
			t.Errorf("status.json usage_limits = %+v", st.UsageLimits)
		}
		if got := r.Stop.Sentence(); !strings.Contains(got, "seven_day window; it resets at "+local(reset)+", later than USAGE_LIMIT_MAX_WAIT=6h0m0s") {
			t.Errorf("stop line %q", got)
		}
	})
}

// USAGE_LIMIT_MAX_WAIT=0 waits however long the reset is away (the
// behaviour before the cap): a reset an hour past the default cap (6 h,
// which stops the run in TestUsageLimitTooFarStops) is waited for. Every
// virtual second of the wait is a countdown tick through the observers,
// so the wait is no longer than it must be to prove that.
func TestUsageLimitNoCapWaits(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		reset := bubbleStart.Add(7 * time.Hour)
		h := newCtlHarness(t, false, func(n int) ctlReply {
			if n == 1 {
				return ctlReply{Raw: rateLine("rejected", "seven_day", reset.Unix(), 1) + "\n" +
					`{"type":"result","subtype":"success","is_error":true,"result":"Weekly limit reached","session_id":"s1"}`,
					Outcome: &supervise.Outcome{ExitCode: 1, Reason: supervise.Exited}}
			}
			return ctlReply{Text: "Did a task.", Check: true, Touch: "src/app.txt"}
		})
		r := h.run(h.settings(map[string]string{"LOOP_DELAY": "0", "USAGE_LIMIT_MAX_WAIT": "0"}))
		h.checkEnd(r, engine.ExitComplete, "plan_complete", "completed")
		if elapsed := time.Since(bubbleStart); elapsed < 7*time.Hour {
			t.Errorf("ran %s of virtual time, less than the 7 h wait", elapsed)
		}
	})
}

// USAGE_STOP_PERCENT: once a window's reported use reaches it, the run
// stops before the next call with its own exit code and reason; the use
// is in status.json, and usage_updated is emitted when it changes only.
func TestUsageStopPercent(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		reset := bubbleStart.Add(2 * time.Hour)
		h := newCtlHarness(t, false, func(n int) ctlReply {
			u := []float64{0.5, 0.5, 0.95}[min(n, 3)-1]
			return ctlReply{Raw: reply(rateLine("allowed", "five_hour", reset.Unix(), u), n), Touch: "src/app.txt"}
		})
		r := h.run(h.settings(map[string]string{"LOOP_DELAY": "0", "USAGE_STOP_PERCENT": "90"}))
		h.checkEnd(r, engine.ExitUsagePace, "usage_stop_percent (five_hour resets 2000-01-01T02:00:00Z)", "stopped")
		if h.callCount() != 3 {
			t.Fatalf("calls = %d, want 3 (stopped before the 4th)", h.callCount())
		}
		if n := len(h.rec.ofType(events.UsageUpdated)); n != 2 {
			t.Errorf("usage_updated events = %d, want 2 (50 %%, then 95 %%)", n)
		}
		st := h.status()
		if len(st.UsageLimits) != 1 || st.UsageLimits[0].UsedPercent == nil || *st.UsageLimits[0].UsedPercent != 95 {
			t.Errorf("status.json usage_limits = %+v", st.UsageLimits)
		}
		if got := r.Stop.Sentence(); got != "usage of the five_hour window reached 95% (USAGE_STOP_PERCENT=90); it resets at "+local(reset)+": run ralph_loop again after the reset" {
			t.Errorf("stop line %q", got)
		}
	})
}

// USAGE_WARNING_ACTION on Claude's allowed_warning: continue goes on (the
// default), stop stops before the next call, wait waits for the window's
// reset and goes on.
func TestUsageWarningAction(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		action string
		code   int
		reason string
		calls  int
		waited time.Duration
	}{
		{"", engine.ExitComplete, "plan_complete", 2, 0},
		{"stop", engine.ExitUsagePace, "usage_warning (seven_day resets 2000-01-01T03:00:00Z)", 1, 0},
		{"wait", engine.ExitComplete, "plan_complete", 2, 3*time.Hour + 5*time.Second},
	} {
		t.Run("action="+tc.action, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				reset := bubbleStart.Add(3 * time.Hour)
				h := newCtlHarness(t, false, func(n int) ctlReply {
					rate := rateLine("allowed", "seven_day", reset.Unix(), 0.5)
					if n == 1 {
						rate = rateLine("allowed_warning", "seven_day", reset.Unix(), 0.8)
					}
					return ctlReply{Raw: reply(rate, n), Check: true, Touch: "src/app.txt"}
				})
				env := map[string]string{"LOOP_DELAY": "0"}
				if tc.action != "" {
					env["USAGE_WARNING_ACTION"] = tc.action
				}
				r := h.run(h.settings(env))
				h.checkEnd(r, tc.code, tc.reason, map[bool]string{true: "completed", false: "stopped"}[tc.code == 0])
				if h.callCount() != tc.calls {
					t.Errorf("calls = %d, want %d", h.callCount(), tc.calls)
				}
				var waited time.Duration
				for _, w := range h.rec.waits() {
					if w.Kind == "usage_limit" {
						waited += w.Delay
					}
				}
				if waited != tc.waited {
					t.Errorf("usage waits = %s, want %s", waited, tc.waited)
				}
				if said := strings.Contains(h.rec.logText(), "Usage warning for the seven_day window (80% used); it resets at "+local(bubbleStart.Add(3*time.Hour))); said != (tc.action == "wait") {
					t.Errorf("the warning line was said: %v\n%s", said, h.rec.logText())
				}
			})
		})
	}
}

// A limit only the agent's words told of is shown as a rejected window
// until a call goes through: then the window is allowed again, and
// usage_updated says so.
func TestUsageLimitLifted(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		h := newCtlHarness(t, false, func(n int) ctlReply {
			if n == 1 {
				return ctlReply{Raw: `{"type":"result","subtype":"success","is_error":true,"result":"5-hour limit reached, try again in 2 hours","session_id":"s1"}`,
					Outcome: &supervise.Outcome{ExitCode: 1, Reason: supervise.Exited}}
			}
			return ctlReply{Text: "Did a task.", Check: true, Touch: "src/app.txt"}
		})
		r := h.run(h.settings(map[string]string{"LOOP_DELAY": "0"}))
		h.checkEnd(r, engine.ExitComplete, "plan_complete", "completed")
		if waited := time.Since(bubbleStart); waited < 2*time.Hour {
			t.Errorf("ran %s of virtual time; the wait was 2 hours", waited)
		}
		up := h.rec.ofType(events.UsageUpdated)
		if len(up) != 2 || up[0].UsageLimits[0].Status != "rejected" || up[1].UsageLimits[0].Status != "allowed" {
			t.Fatalf("usage_updated events = %+v", up)
		}
		if w := up[0].UsageLimits[0]; w.Window != "five_hour" || w.ResetsAt == nil {
			t.Errorf("the worded limit's window = %+v", w)
		}
		if st := h.status(); len(st.UsageLimits) != 1 || st.UsageLimits[0].Status != "allowed" {
			t.Errorf("status.json usage_limits = %+v", st.UsageLimits)
		}
	})
}
