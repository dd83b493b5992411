package engine_test

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/ralphloop/ralph_loop/internal/engine"
	"github.com/ralphloop/ralph_loop/internal/events"
	"github.com/ralphloop/ralph_loop/internal/supervise"
)

func stalled() *supervise.Outcome {
	return &supervise.Outcome{ExitCode: 143, Reason: supervise.WriteStalled, Err: errors.New("no file written")}
}

// A call the write heartbeat stopped (WRITE_TIMEOUT_MINUTES) is counted,
// leaves status.json valid (running / write_timeout, never the bash loop's
// "retrying"), and the next call is told to write early; the loop goes on.
func TestWriteHeartbeatRetriesWithNotice(t *testing.T) {
	t.Parallel()
	// The notice's first sentences, as the agent reads them in its prompt.
	const writeEarly = "PREVIOUS LOOP TIMED OUT (read-only). START WRITING CODE IMMEDIATELY."
	synctest.Test(t, func(t *testing.T) {
		h := newCtlHarness(t, false, func(n int) ctlReply {
			if n == 1 {
				return ctlReply{Outcome: stalled()}
			}
			return ctlReply{Text: "Did a task.", Check: true, Touch: "src/app.txt"}
		})
		s := h.settings(map[string]string{"LOOP_DELAY": "0", "WRITE_TIMEOUT_MINUTES": "5"})
		r := h.run(s)
		h.checkEnd(r, engine.ExitComplete, "plan_complete", "completed")
		if got := h.callCount(); got != 3 {
			t.Fatalf("calls = %d, want 3", got)
		}
		if h.opts[0].WriteTimeout != 5*time.Minute {
			t.Errorf("write heartbeat = %s, want 5m", h.opts[0].WriteTimeout)
		}
		timedOut := h.rec.ofType(events.IterationTimedOut)
		if len(timedOut) != 1 || timedOut[0].Action != "write_timeout" || timedOut[0].Status != "running" ||
			timedOut[0].Iteration == nil || timedOut[0].Iteration.Outcome != "read_only_timeout" {
			t.Fatalf("iteration_timed_out events = %+v", timedOut)
		}
		if !strings.Contains(strings.Join(h.argvs[1], " "), writeEarly) {
			t.Errorf("call 2 was not told to write early:\n%q", h.argvs[1])
		}
		if strings.Contains(strings.Join(h.argvs[2], " "), writeEarly) {
			t.Errorf("call 3 still carries the write-early notice")
		}
		if h.rd.Exists(".write_heartbeat_triggered") {
			t.Error("the heartbeat marker outlived the call it was meant for")
		}
		// The stopped call counts against the hourly limit, as intended.
		if st := h.status(); st.CallsMadeThisHour != 3 {
			t.Errorf("calls_made_this_hour = %d, want 3", st.CallsMadeThisHour)
		}
	})
}

// Repeated read-only calls open the breaker (CB_READ_ONLY_TIMEOUT_THRESHOLD):
// halted / read_only_timeouts, exit 2.
func TestWriteHeartbeatOpensBreaker(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		h := newCtlHarness(t, false, func(int) ctlReply { return ctlReply{Outcome: stalled()} })
		s := h.settings(map[string]string{"LOOP_DELAY": "0", "WRITE_TIMEOUT_MINUTES": "5", "CB_READ_ONLY_TIMEOUT_THRESHOLD": "2"})
		r := h.run(s)
		h.checkEnd(r, engine.ExitHalted, "read_only_timeouts", "halted")
		if got := h.callCount(); got != 2 {
			t.Fatalf("calls = %d, want 2", got)
		}
		if got := h.breakerState(); got != "OPEN" {
			t.Errorf("breaker = %s, want OPEN", got)
		}
		if !h.rec.hasLine("Circuit breaker opened after repeated read-only timeouts") {
			t.Errorf("no read-only breaker message in the log:\n%s", h.rec.logText())
		}
	})
}

// The heartbeat is capped below the call timeout (CLAUDE_TIMEOUT_MINUTES
// minus 2), and off in live mode as in the bash loop.
func TestWriteHeartbeatEffectiveTimeout(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		env  map[string]string
		args []string
		want time.Duration
	}{
		{"below the timeout", map[string]string{"WRITE_TIMEOUT_MINUTES": "8"}, nil, 8 * time.Minute},
		{"capped", map[string]string{"WRITE_TIMEOUT_MINUTES": "20"}, []string{"--timeout", "15"}, 13 * time.Minute},
		{"off", map[string]string{"WRITE_TIMEOUT_MINUTES": "0"}, nil, 0},
		{"live", map[string]string{"WRITE_TIMEOUT_MINUTES": "8"}, []string{"--live"}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				h := newCtlHarness(t, false, func(int) ctlReply { return ctlReply{Text: "Done.", Check: true, Touch: "src/app.txt"} })
				env := map[string]string{"LOOP_DELAY": "0"}
				for k, v := range tc.env {
					env[k] = v
				}
				h.run(h.settings(env, tc.args...))
				if len(h.opts) == 0 || !slices.ContainsFunc(h.opts, func(o supervise.Options) bool { return o.WriteTimeout == tc.want }) || h.opts[0].WriteTimeout != tc.want {
					t.Fatalf("write heartbeat = %v, want %s", h.opts[0].WriteTimeout, tc.want)
				}
			})
		})
	}
}
