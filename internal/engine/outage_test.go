package engine_test

import (
	"os"
	"strings"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ralphloop/ralph_loop/internal/engine"
	"github.com/ralphloop/ralph_loop/internal/events"
)

// claudeError is what `claude -p --output-format json` prints when the API
// call fails: a result with is_error true, the error text as its result,
// and exit code 1.
func claudeError(msg string) ctlReply {
	return ctlReply{Outcome: failed(), Raw: `{"type":"result","subtype":"success","is_error":true,"duration_ms":2100,"duration_api_ms":0,"num_turns":1,` +
		`"result":` + jsonString(msg) + `,"session_id":"s-1","total_cost_usd":0,"usage":{"input_tokens":0,"output_tokens":0}}` + "\n"}
}

func jsonString(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	return `"` + r.Replace(s) + `"`
}

const (
	overloaded = `API Error: 529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":null}`
	badKey     = "Invalid API key · Please run /login"
)

// An outage longer than MAX_CONSECUTIVE_FAILURES calls is waited out:
// eight 529s in a row back off 1 s, 2 s, … 128 s without stopping the
// run, and the ninth call, which works, ends the outage.
func TestOutageIsWaitedOut(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		h := newCtlHarness(t, false, func(n int) ctlReply {
			if n <= 8 {
				return claudeError(overloaded)
			}
			return working(n)
		})
		r := h.run(h.settings(map[string]string{"LOOP_DELAY": "0", "MAX_LOOPS": "10"}))
		h.checkEnd(r, engine.ExitMaxLoops, "max_loops", "stopped")
		if diff := cmp.Diff(waitsOf("outage_backoff", 1, 2, 4, 8, 16, 32, 64, 128), h.rec.waits()); diff != "" {
			t.Errorf("waits (-want +got):\n%s", diff)
		}
		log := h.rec.logText()
		for _, want := range []string{
			"Provider outage: the provider is overloaded — it said: API Error: 529",
			"next try in 1s (try 1, failing for 0s; stops at OUTAGE_MAX=6h0m0s)",
			"next try in 2m8s (try 8, failing for 2m7s; stops at OUTAGE_MAX=6h0m0s)",
		} {
			if !strings.Contains(log, want) {
				t.Errorf("log lacks %q:\n%s", want, log)
			}
		}
		if strings.Contains(log, "Execution failed, waiting") {
			t.Errorf("a transient failure was counted by the failure guard:\n%s", log)
		}
		// The same line is in ralph.log (and on the console's stderr,
		// rendered by the same code).
		ralphLog, _, _ := h.rd.ReadFile("logs/ralph.log")
		if !strings.Contains(string(ralphLog), "Provider outage: the provider is overloaded") {
			t.Errorf("ralph.log does not say it waits for the provider:\n%s", ralphLog)
		}
	})
}

// A provider that stays down: the waits grow to RETRY_MAX_DELAY (30 min)
// and the failing call at OUTAGE_MAX (6 h) ends the run with its own exit
// code and reason.
func TestOutageMaxStops(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		h := newCtlHarness(t, false, func(int) ctlReply { return claudeError("API Error: Connection error.") })
		t0 := time.Now()
		r := h.run(h.settings(map[string]string{"LOOP_DELAY": "0"}))
		h.checkEnd(r, engine.ExitOutage, "provider_outage", "error")
		if got := time.Since(t0); got != 6*time.Hour {
			t.Errorf("the run lasted %v, want OUTAGE_MAX (6h)", got)
		}
		want := waitsOf("outage_backoff", 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024)
		for range 10 {
			want = append(want, waitsOf("outage_backoff", 1800)...)
		}
		want = append(want, waitsOf("outage_backoff", 1553)...) // the rest of the 6 h
		if diff := cmp.Diff(want, h.rec.waits()); diff != "" {
			t.Errorf("waits (-want +got):\n%s", diff)
		}
		if h.callCount() != len(want)+1 {
			t.Errorf("%d calls, want %d", h.callCount(), len(want)+1)
		}
		line := r.Stop.Sentence()
		for _, w := range []string{"Claude Code's provider has been failing for 6h0m0s, OUTAGE_MAX=6h0m0s", "23 tries", "could not be reached", "Connection error."} {
			if !strings.Contains(line, w) {
				t.Errorf("stop line %q lacks %q", line, w)
			}
		}
	})
}

// OUTAGE_MAX and RETRY_MAX_DELAY as set: 1 s, 2 s, then 3 s waits, and the
// failure at 10 s stops.
func TestOutageSettings(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		h := newCtlHarness(t, false, func(int) ctlReply { return claudeError(overloaded) })
		r := h.run(h.settings(map[string]string{"LOOP_DELAY": "0", "RETRY_MAX_DELAY": "3s", "OUTAGE_MAX": "10s"}))
		h.checkEnd(r, engine.ExitOutage, "provider_outage", "error")
		if diff := cmp.Diff(waitsOf("outage_backoff", 1, 2, 3, 3, 1), h.rec.waits()); diff != "" {
			t.Errorf("waits (-want +got):\n%s", diff)
		}
	})
}

// A wait in an outage is stopped by SIGTERM like any other.
func TestOutageWaitStops(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		h := newCtlHarness(t, false, func(int) ctlReply { return claudeError(overloaded) })
		done := h.start(h.settings(map[string]string{"LOOP_DELAY": "0"}))
		time.Sleep(10 * time.Minute) // deep into a 17 min wait
		if got := h.stopper.Signal(syscall.SIGTERM); got != "stop" {
			t.Errorf("SIGTERM during the outage: %s, want stop", got)
		}
		h.checkEnd(<-done, engine.ExitSIGTERM, "SIGTERM", "stopped")
		ended := h.rec.ofType(events.DelayEnded)
		if last := ended[len(ended)-1]; last.Wait != "outage_backoff" || last.Reason != "stopped" {
			t.Errorf("last delay_ended = %+v", last)
		}
	})
}

// Ctrl+C on a terminal (or the dashboard's skip) skips a wait in an
// outage as any other: the next try starts 2 s later, not 17 min later.
func TestOutageWaitSkipped(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		h := newCtlHarness(t, true, func(n int) ctlReply {
			if n <= 11 {
				return claudeError(overloaded)
			}
			return working(n)
		})
		t0 := time.Now()
		done := h.start(h.settings(map[string]string{"LOOP_DELAY": "0", "MAX_LOOPS": "12"}))
		time.Sleep(1023*time.Second + time.Minute) // a minute into the 11th wait (1024 s)
		if got := h.stopper.Signal(os.Interrupt); got != "skip" {
			t.Errorf("Ctrl+C during the outage: %s, want skip", got)
		}
		h.checkEnd(<-done, engine.ExitMaxLoops, "max_loops", "stopped")
		starts := h.rec.starts(t0)
		if got, want := starts[len(starts)-1], 1023*time.Second+time.Minute+engine.SkipWindow; got != want {
			t.Errorf("the last try started at %v, want %v (skipped)", got, want)
		}
		if w := h.rec.waits(); !w[len(w)-1].Skipped || w[len(w)-1].Kind != "outage_backoff" {
			t.Errorf("last wait %+v, want a skipped outage_backoff", w[len(w)-1])
		}
	})
}

// A permanent failure stops at the first call with one line that names
// the cause and the fix.
func TestPermanentFailureStops(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		h := newCtlHarness(t, false, func(int) ctlReply { return claudeError(badKey) })
		r := h.run(h.settings(map[string]string{"LOOP_DELAY": "0"}))
		h.checkEnd(r, engine.ExitFailed, "permanent_failure", "error")
		if h.callCount() != 1 {
			t.Errorf("%d calls, want 1", h.callCount())
		}
		want := "Claude Code is not logged in or its API key is invalid: run `claude` once and /login (or set a valid ANTHROPIC_API_KEY) — it said: " + badKey
		if got := r.Stop.Sentence(); got != want {
			t.Errorf("stop line\n got %q\nwant %q", got, want)
		}
		if !h.rec.hasLine(want) {
			t.Errorf("the log does not say it:\n%s", h.rec.logText())
		}
		if len(h.rec.waits()) != 0 {
			t.Errorf("waits %+v before a stop that no retry can help", h.rec.waits())
		}
	})
}

// MAX_CONSECUTIVE_FAILURES=0 (never stop) keeps a permanent failure an
// ordinary, counted one.
func TestPermanentFailureNeverStop(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		h := newCtlHarness(t, false, func(int) ctlReply { return claudeError(badKey) })
		r := h.run(h.settings(map[string]string{"LOOP_DELAY": "0", "MAX_CONSECUTIVE_FAILURES": "0", "MAX_LOOPS": "3"}))
		h.checkEnd(r, engine.ExitMaxLoops, "max_loops", "stopped")
		if diff := cmp.Diff(waitsOf("failure_backoff", 1, 2), h.rec.waits()); diff != "" {
			t.Errorf("waits (-want +got):\n%s", diff)
		}
	})
}

// A failure nobody recognises is counted as before.
func TestUnknownFailureCounted(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		h := newCtlHarness(t, false, func(int) ctlReply { return claudeError("Error: something odd happened") })
		r := h.run(h.settings(map[string]string{"LOOP_DELAY": "0"}))
		h.checkEnd(r, engine.ExitFailed, "consecutive_failures", "error")
		if diff := cmp.Diff(waitsOf("failure_backoff", 1, 2, 4, 8), h.rec.waits()); diff != "" {
			t.Errorf("waits (-want +got):\n%s", diff)
		}
	})
}

// Some Claude Code versions end `claude -p` with exit 0 and is_error:
// true when the API failed. Such a reply is the provider's failure, not a
// loop without progress: the outage is waited out and the breaker (which
// opens after three loops without progress) never sees it.
func TestOutageInAnExitZeroReply(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		h := newCtlHarness(t, false, func(n int) ctlReply {
			if n <= 5 {
				r := claudeError(overloaded)
				r.Outcome = nil // exit 0
				return r
			}
			return working(n)
		})
		r := h.run(h.settings(map[string]string{"LOOP_DELAY": "0", "MAX_LOOPS": "6"}))
		h.checkEnd(r, engine.ExitMaxLoops, "max_loops", "stopped")
		if diff := cmp.Diff(waitsOf("outage_backoff", 1, 2, 4, 8, 16), h.rec.waits()); diff != "" {
			t.Errorf("waits (-want +got):\n%s", diff)
		}
		if got := h.breakerState(); got != "CLOSED" {
			t.Errorf("breaker %s after an outage", got)
		}
		if n := len(h.rec.ofType(events.IterationFailed)); n != 5 {
			t.Errorf("%d iteration_failed events, want 5", n)
		}
		if !h.rec.hasLine("Claude Code exited: reported an error (code 0)") {
			t.Errorf("log:\n%s", h.rec.logText())
		}
	})
}

// An exit-0 reply that says the API key is invalid stops the run; an
// is_error reply nobody recognises is analysed as a reply.
func TestPermanentInAnExitZeroReply(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		h := newCtlHarness(t, false, func(int) ctlReply { r := claudeError(badKey); r.Outcome = nil; return r })
		r := h.run(h.settings(map[string]string{"LOOP_DELAY": "0"}))
		h.checkEnd(r, engine.ExitFailed, "permanent_failure", "error")
		if h.callCount() != 1 {
			t.Errorf("%d calls", h.callCount())
		}
	})
	synctest.Test(t, func(t *testing.T) {
		h := newCtlHarness(t, false, func(int) ctlReply {
			r := claudeError("Reached the maximum number of turns")
			r.Outcome = nil
			return r
		})
		r := h.run(h.settings(map[string]string{"LOOP_DELAY": "0"}))
		h.checkEnd(r, engine.ExitHalted, "stagnation_detected", "halted")
	})
}
