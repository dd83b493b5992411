package engine_test

import (
	"errors"
	"os"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ralphloop/ralph_loop/internal/engine"
	"github.com/ralphloop/ralph_loop/internal/supervise"
)

// sayings are the run's logs/ralph.log lines as the console shows them,
// "[LEVEL] msg", the project's folder written DIR.
func (h *ctlHarness) sayings() []string {
	return strings.Split(strings.ReplaceAll(h.rec.logText(), h.dir, "DIR"), "\n")
}

// between are the lines from the first that contains from to the first
// after it that contains to, both included.
func between(lines []string, from, to string) []string {
	for i, l := range lines {
		if !strings.Contains(l, from) {
			continue
		}
		for j := i; j < len(lines); j++ {
			if strings.Contains(lines[j], to) {
				return lines[i : j+1]
			}
		}
		return lines[i:]
	}
	return nil
}

// What a failed call says, and a back-off, come in the order the loop
// has always said them: how the call failed, what to do about output the
// loop stopped, the end of its stderr, then the wait that follows.
func TestFailedCallSayings(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		h := newCtlHarness(t, false, func(n int) ctlReply {
			switch n {
			case 1:
				return ctlReply{Outcome: failed(), Stderr: "one\ntwo\nthree\nboom\n"}
			case 2:
				return ctlReply{Outcome: &supervise.Outcome{ExitCode: 127, Reason: supervise.StartFailed, Err: errors.New("exec: \"claude\": executable file not found in $PATH")}}
			case 3:
				return ctlReply{Outcome: &supervise.Outcome{ExitCode: 143, Reason: supervise.OutputTooLarge, Err: errors.New("output too large")}, Stderr: "killed\n"}
			case 4:
				return claudeError(overloaded)
			}
			return working(n)
		})
		r := h.run(h.settings(map[string]string{"LOOP_DELAY": "0", "MAX_LOOPS": "5", "MAX_OUTPUT_MB": "1"}))
		h.checkEnd(r, engine.ExitMaxLoops, "max_loops", "stopped")
		got := between(h.sayings(), "Executing Claude Code (Call 1/", "Max loops reached")
		want := []string{
			"[LOOP] Executing Claude Code (Call 1/100)",
			"[INFO] ⏳ Starting Claude Code execution... (timeout: 15m)",
			"[INFO] Starting new session",
			"[DEBUG] Loop context: Loop #1. Remaining tasks: 2. Next: - [ ] Task A. ",
			"[INFO] Using modern CLI mode (json output)",
			"[ERROR] ❌ Claude Code exited: error (code 1)",
			"[ERROR]   stderr (last 3 lines): two three boom",
			"[ERROR]   full stderr log: .ralph/logs/claude_stderr_2000-01-01_00-00-00-000_loop1.log",
			"[WARN] Execution failed, waiting 1s before retry (failure 1 of 5)...",
			"[INFO] Retrying in: 00:00:01",
			"[LOOP] === Starting Loop #2 ===",
			"[LOOP] Executing Claude Code (Call 1/100, retry 1)",
			"[INFO] ⏳ Starting Claude Code execution... (timeout: 15m)",
			"[INFO] Starting new session",
			"[DEBUG] Loop context: Loop #2. Remaining tasks: 2. Next: - [ ] Task A. ",
			"[INFO] Using modern CLI mode (json output)",
			"[ERROR] ❌ Claude Code exited: could not start (code 127)",
			`[ERROR]   exec: "claude": executable file not found in $PATH`,
			"[WARN] Execution failed, waiting 2s before retry (failure 2 of 5)...",
			"[INFO] Retrying in: 00:00:02",
			"[LOOP] === Starting Loop #3 ===",
			"[LOOP] Executing Claude Code (Call 1/100, retry 2)",
			"[INFO] ⏳ Starting Claude Code execution... (timeout: 15m)",
			"[INFO] Starting new session",
			"[DEBUG] Loop context: Loop #3. Remaining tasks: 2. Next: - [ ] Task A. ",
			"[INFO] Using modern CLI mode (json output)",
			"[ERROR] ❌ Claude Code exited: output too large (more than MAX_OUTPUT_MB=1) (code 143)",
			"[ERROR]   the agent printed more than MAX_OUTPUT_MB=1 MB and was stopped; .ralph/logs/claude_output_2000-01-01_00-00-03-000_loop3.log keeps the head and the tail (raise MAX_OUTPUT_MB, or 0 for no limit, if this output was expected)",
			"[ERROR]   stderr (last 3 lines): killed",
			"[ERROR]   full stderr log: .ralph/logs/claude_stderr_2000-01-01_00-00-03-000_loop3.log",
			"[WARN] Execution failed, waiting 4s before retry (failure 3 of 5)...",
			"[INFO] Retrying in: 00:00:04",
			"[LOOP] === Starting Loop #4 ===",
			"[LOOP] Executing Claude Code (Call 2/100, retry 3)",
			"[INFO] ⏳ Starting Claude Code execution... (timeout: 15m)",
			"[INFO] Starting new session",
			"[DEBUG] Loop context: Loop #4. Remaining tasks: 2. Next: - [ ] Task A. ",
			"[INFO] Using modern CLI mode (json output)",
			"[ERROR] ❌ Claude Code exited: error (code 1)",
			`[WARN] ⏳ Provider outage: the provider is overloaded — it said: API Error: 529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":null}; next try in 1s (try 1, failing for 0s; stops at OUTAGE_MAX=6h0m0s)`,
			"[INFO] Provider outage; next try in: 00:00:01",
			"[LOOP] === Starting Loop #5 ===",
			"[LOOP] Executing Claude Code (Call 2/100, retry 4)",
			"[INFO] ⏳ Starting Claude Code execution... (timeout: 15m)",
			"[INFO] Starting new session",
			"[DEBUG] Loop context: Loop #5. Remaining tasks: 2. Next: - [ ] Task A. ",
			"[INFO] Using modern CLI mode (json output)",
			"[SUCCESS] ✅ Claude Code execution completed successfully",
			"[INFO] 🔍 Analyzing Claude Code response...",
			"[INFO] Saved session: sess-5...",
			"[DEBUG] Detected 1 unique files changed (commits + working tree) since loop start",
			"[LOOP] === Completed Loop #5 ===",
			"[INFO] Max loops reached: stopped after 5 agent calls (--max-loops 5)",
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("log (-want +got):\n%s", diff)
		}
	})
}

// A stop says what stopped the run before the run's end: a signal, an
// exit condition with the completed run's lines.
func TestEndSayings(t *testing.T) {
	t.Parallel()
	t.Run("signal", func(t *testing.T) {
		t.Parallel()
		synctest.Test(t, func(t *testing.T) {
			h := newCtlHarness(t, false, working)
			done := h.start(h.settings(map[string]string{"LOOP_DELAY": "60"}))
			time.Sleep(30 * time.Second) // inside the first loop delay
			h.stopper.Signal(os.Interrupt)
			h.checkEnd(<-done, engine.ExitSIGINT, "SIGINT", "stopped")
			got := between(h.sayings(), "Completed Loop #1", "Session reset")
			want := []string{
				"[LOOP] === Completed Loop #1 ===",
				"[INFO] Next loop in: 00:01:00",
				"[INFO] Ralph loop interrupted by SIGINT. Cleaning up...",
				"[INFO] Session reset: manual_interrupt",
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("log (-want +got):\n%s", diff)
			}
		})
	})
	t.Run("complete", func(t *testing.T) {
		t.Parallel()
		synctest.Test(t, func(t *testing.T) {
			h := newCtlHarness(t, false, func(n int) ctlReply { r := working(n); r.Check = true; return r })
			r := h.run(h.settings(map[string]string{"LOOP_DELAY": "0"}))
			h.checkEnd(r, engine.ExitComplete, "plan_complete", "completed")
			got := between(h.sayings(), "Analyzing Claude Code response", "Exit reason")
			want := []string{
				"[INFO] 🔍 Analyzing Claude Code response...",
				"[INFO] Saved session: sess-1...",
				"[WARN] Progress tracking mismatch: claimed 0 completed task(s) but checkbox delta was 1. Completion signals suppressed for this loop.",
				"[DEBUG] Detected 2 unique files changed (commits + working tree) since loop start",
				"[LOOP] === Completed Loop #1 ===",
				"[LOOP] === Starting Loop #2 ===",
				"[LOOP] Executing Claude Code (Call 2/100)",
				"[INFO] ⏳ Starting Claude Code execution... (timeout: 15m)",
				"[INFO] Resuming session: sess-1... (0h old)",
				"[DEBUG] Loop context: Loop #2. Session continued — do NOT re-read spec files. Resume implementation. Remaining tasks: 1. Next: - [ ] Task B. Previous: Worked on it. Changed: .ralph/@fix_plan.md (+1/-1), src/app.txt (+1/-0). ",
				"[INFO] Using modern CLI mode (json output)",
				"[SUCCESS] ✅ Claude Code execution completed successfully",
				"[INFO] 🔍 Analyzing Claude Code response...",
				"[INFO] Saved session: sess-2...",
				"[WARN] Progress tracking mismatch: claimed 0 completed task(s) but checkbox delta was 1. Completion signals suppressed for this loop.",
				"[DEBUG] Detected 2 unique files changed (commits + working tree) since loop start",
				"[INFO] Exit condition: All @fix_plan.md items completed (2/2)",
				"[SUCCESS] 🏁 Graceful exit triggered: plan_complete",
				"[INFO] Session reset: project_complete",
				"[SUCCESS] 🎉 Ralph has completed the project! Final stats:",
				"[INFO]   - Total loops: 2",
				"[INFO]   - API calls used: 2",
				"[INFO]   - Exit reason: plan_complete",
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("log (-want +got):\n%s", diff)
			}
		})
	})
}

// What a call's end says with it comes in the order the loop has always
// said it: the usage limit that stopped it, the breaker it opened, a
// read-only call retried; and the lines that open the main loop.
func TestCallEndSayings(t *testing.T) {
	t.Parallel()
	t.Run("read-only", func(t *testing.T) {
		t.Parallel()
		synctest.Test(t, func(t *testing.T) {
			h := newCtlHarness(t, false, func(int) ctlReply { return ctlReply{Outcome: stalled()} })
			r := h.run(h.settings(map[string]string{"LOOP_DELAY": "0", "WRITE_TIMEOUT_MINUTES": "5", "CB_READ_ONLY_TIMEOUT_THRESHOLD": "2"}))
			h.checkEnd(r, engine.ExitHalted, "read_only_timeouts", "halted")
			// a new project: no call counted yet, no counter reset said
			start := []string{"[INFO] Starting main loop...", "[LOOP] === Starting Loop #1 ==="}
			if diff := cmp.Diff(start, between(h.sayings(), "Starting main loop", "Starting Loop #1")); diff != "" {
				t.Errorf("log (-want +got):\n%s", diff)
			}
			got := between(h.sayings(), "Starting Loop #1", "read-only timeouts")
			want := []string{
				"[LOOP] === Starting Loop #1 ===",
				"[LOOP] Executing Claude Code (Call 1/100)",
				"[INFO] ⏳ Starting Claude Code execution... (timeout: 15m)",
				"[INFO] Starting new session",
				"[DEBUG] Loop context: Loop #1. Remaining tasks: 2. Next: - [ ] Task A. ",
				"[INFO] Using modern CLI mode (json output)",
				"[WARN] Write heartbeat: no file modifications in 5m",
				"[WARN] Write heartbeat: read-only loop, retrying with write-early context",
				"[LOOP] === Completed Loop #1 ===",
				"[LOOP] === Starting Loop #2 ===",
				"[LOOP] Executing Claude Code (Call 2/100, retry 1)",
				"[INFO] ⏳ Starting Claude Code execution... (timeout: 15m)",
				"[INFO] Starting new session",
				"[DEBUG] Loop context: Loop #2. Remaining tasks: 2. Next: - [ ] Task A. PREVIOUS LOOP TIMED OUT (read-only). START WRITING CODE IMMEDIATELY. Do not re-read files you already explored. ",
				"[INFO] Using modern CLI mode (json output)",
				"[WARN] Write heartbeat: no file modifications in 5m",
				"[WARN] Circuit breaker: CLOSED → OPEN (Read-only timeout in 2 consecutive loops (agent stuck reading))",
				"[INFO] Session reset: read_only_circuit_breaker",
				"[ERROR] 🛑 Circuit breaker has opened - halting loop",
				"[INFO] Run 'ralph_loop --reset-circuit' to reset the circuit breaker after addressing issues",
				"[ERROR] Circuit breaker opened after repeated read-only timeouts",
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("log (-want +got):\n%s", diff)
			}
		})
	})
	t.Run("no progress", func(t *testing.T) {
		t.Parallel()
		synctest.Test(t, func(t *testing.T) {
			h := newCtlHarness(t, false, func(int) ctlReply { return ctlReply{Text: "Looked around."} })
			r := h.run(h.settings(map[string]string{"LOOP_DELAY": "0"}))
			h.checkEnd(r, engine.ExitHalted, "stagnation_detected", "halted")
			got := between(h.sayings(), "Completed Loop #2", "halting loop")
			got = append(got, between(h.sayings(), "halting loop", "Run '")[1:]...)
			want := []string{
				"[LOOP] === Completed Loop #2 ===",
				"[LOOP] === Starting Loop #3 ===",
				"[LOOP] Executing Claude Code (Call 3/100)",
				"[INFO] ⏳ Starting Claude Code execution... (timeout: 15m)",
				"[INFO] Resuming session: sess-2... (0h old)",
				"[DEBUG] Loop context: Loop #3. Session continued — do NOT re-read spec files. Resume implementation. Remaining tasks: 2. Next: - [ ] Task A. Circuit breaker: HALF_OPEN. Previous: Looked around. ",
				"[INFO] Using modern CLI mode (json output)",
				"[SUCCESS] ✅ Claude Code execution completed successfully",
				"[INFO] 🔍 Analyzing Claude Code response...",
				"[INFO] Saved session: sess-3...",
				"[DEBUG] Detected 0 unique files changed (commits + working tree) since loop start",
				"[WARN] Circuit breaker: HALF_OPEN → OPEN (No recovery, opening circuit after 3 loops)",
				"[INFO] Session reset: circuit_breaker_trip",
				"[ERROR] 🛑 Circuit breaker has opened - halting loop",
				"[INFO] Run 'ralph_loop --reset-circuit' to reset the circuit breaker after addressing issues",
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("log (-want +got):\n%s", diff)
			}
		})
	})
	t.Run("usage limit", func(t *testing.T) {
		t.Parallel()
		synctest.Test(t, func(t *testing.T) {
			h := newCtlHarness(t, false, func(n int) ctlReply {
				if n == 1 {
					return ctlReply{Raw: `{"type":"result","subtype":"success","is_error":true,"result":"Claude AI usage limit reached","session_id":"s1"}`,
						Outcome: &supervise.Outcome{ExitCode: 1, Reason: supervise.Exited}}
				}
				return ctlReply{Text: "Did a task.", Check: true, Touch: "src/app.txt"}
			})
			r := h.run(h.settings(map[string]string{"LOOP_DELAY": "0", "MAX_CONSECUTIVE_FAILURES": "1"}))
			h.checkEnd(r, engine.ExitComplete, "plan_complete", "completed")
			got := between(h.sayings(), "Using modern CLI mode", "Usage limit reached;")
			want := []string{
				"[INFO] Using modern CLI mode (json output)",
				"[ERROR] 🚫 Claude Code usage limit reached (a window the CLI did not name)",
				"[WARN] 🛑 Usage limit reached; its reset time was not reported",
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("log (-want +got):\n%s", diff)
			}
		})
	})
}
