package engine_test

// Issue 36's defects, each a run of the loop in virtual time: a run stops
// for the right reason and spends no call that buys nothing.

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/ralphloop/ralph_loop/internal/engine"
	"github.com/ralphloop/ralph_loop/internal/events"
	"github.com/ralphloop/ralph_loop/internal/fakeagent"
)

// done is a reply that says the work is complete (EXIT_SIGNAL: true).
func done(text string, n int) string {
	return fakeagent.ClaudeJSON(text+"\n"+fakeagent.StatusBlock("COMPLETE", true, 0), fmt.Sprintf("sess-%d", n))
}

// A dirty tree is progress forever: an agent that leaves an uncommitted
// edit on call 1 and then changes nothing made progress once. The same
// dirty tree is no progress, so the breaker opens after
// CB_NO_PROGRESS_THRESHOLD (3) loops without change: 4 calls, not
// --max-loops.
func TestDirtyTreeIsNoProgress(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		h := newCtlHarness(t, false, func(n int) ctlReply {
			if n == 1 {
				return ctlReply{Text: "Started on task A.", Touch: "src/app.txt"}
			}
			return ctlReply{Text: "Still on task A."}
		})
		r := h.run(h.settings(map[string]string{"LOOP_DELAY": "1s", "MAX_LOOPS": "12"}))
		h.checkEnd(r, engine.ExitHalted, "stagnation_detected", "halted")
		if n := h.callCount(); n != 4 {
			t.Errorf("%d calls, want 4 (1 with a change, then 3 without)", n)
		}
		// The console still says what git's diff says.
		if !h.rec.hasLine("Files Changed: 1") && !h.rec.hasLine("Detected 1 unique files changed") {
			t.Errorf("no line says git sees the changed file:\n%s", h.rec.logText())
		}
	})
}

// Any real change is progress: a further edit of a file that was already
// dirty, a new untracked file, a commit. An agent that keeps changing the
// tree keeps the breaker closed.
func TestEveryChangeIsProgress(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		h := newCtlHarness(t, false, func(n int) ctlReply {
			switch n % 3 {
			case 1:
				return ctlReply{Text: "Edited.", Touch: "src/app.txt"}
			case 2:
				return ctlReply{Text: "Added a file.", Touch: fmt.Sprintf("src/new%d.txt", n)}
			}
			return ctlReply{Text: "Committed.", Touch: "src/app.txt", Commit: true}
		})
		r := h.run(h.settings(map[string]string{"LOOP_DELAY": "1s", "MAX_LOOPS": "7"}))
		h.checkEnd(r, engine.ExitMaxLoops, "max_loops", "stopped")
		if s := h.breakerState(); s != "CLOSED" {
			t.Errorf("breaker %s after 7 loops that each changed something, want CLOSED", s)
		}
	})
}

// The held completion (QUALITY_GATE_MODE=block, a failing TEST_COMMAND)
// of an agent that ticks everything and then changes nothing counts toward
// the breaker like any loop without progress, and the stop names it.
func TestHeldCompletionCountsTowardTheBreaker(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		h := newCtlHarness(t, false, func(n int) ctlReply {
			r := ctlReply{Raw: done("All done, all tests pass.", n)}
			if n == 1 {
				r.Check, r.Touch = true, "src/app.txt"
			}
			if n == 2 {
				r.Check = true
			}
			return r
		})
		r := h.run(h.settings(map[string]string{"LOOP_DELAY": "1s", "MAX_LOOPS": "12",
			"TEST_COMMAND": "echo FAIL: TestLogin; exit 1", "QUALITY_GATE_MODE": "block"}))
		h.checkEnd(r, engine.ExitHalted, "stagnation_detected", "halted")
		if n := h.callCount(); n != 5 {
			t.Errorf("%d calls, want 5 (2 that ticked, then 3 without change)", n)
		}
		msg := r.Stop.Sentence()
		for _, want := range []string{"claimed done 4 times", "TEST_COMMAND `echo FAIL: TestLogin; exit 1` fails", "nothing changed since loop 2"} {
			if !strings.Contains(msg, want) {
				t.Errorf("stop line %q does not say %q", msg, want)
			}
		}
	})
}

// "Completed" with the plan untouched: an agent that says it is done and
// ticks nothing. The default mode keeps the bash loop's decision (two exit
// signals complete the run, and the last line says plan 0/2); in strict
// mode the claim is refused and fed back, and the second claim with
// nothing changed ends the run as not proven: exit 12, never completed.
func TestClaimWithOpenTasks(t *testing.T) {
	t.Parallel()
	tests := []struct {
		mode   string
		code   int
		reason string
		status string
	}{
		{"signals", engine.ExitComplete, "completion_signals", "completed"},
		{"strict", engine.ExitUnproven, "completion_not_proven", "halted"},
	}
	for _, tc := range tests {
		t.Run(tc.mode, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				h := newCtlHarness(t, false, func(n int) ctlReply { return ctlReply{Raw: done("All done! The project is complete.", n)} })
				r := h.run(h.settings(map[string]string{"LOOP_DELAY": "1s", "MAX_LOOPS": "12", "COMPLETION_MODE": tc.mode}))
				h.checkEnd(r, tc.code, tc.reason, tc.status)
				if n := h.callCount(); n != 2 {
					t.Errorf("%d calls, want 2", n)
				}
				if tc.mode == "signals" {
					if !h.rec.hasLine("Completed (completion_signals): plan 0/2") {
						t.Errorf("the last line does not name the evidence:\n%s", h.rec.logText())
					}
					return
				}
				if last := strings.Join(h.argvs[1], " "); !strings.Contains(last, "NOT DONE: you said the work is done, but 2 of 2 tasks in @fix_plan.md are open: finish them, or remove them from the plan with a reason.") {
					t.Errorf("call 2 was not told that the tasks are open: %q", last)
				}
				if !h.rec.hasLine("Not done: the agent reported completion (exit_signal), but 2 of 2 tasks in @fix_plan.md are open; going on (COMPLETION_MODE=strict)") {
					t.Errorf("no line says the claim was refused:\n%s", h.rec.logText())
				}
				want := "not done: the agent claimed done 2 times with 2 of 2 tasks open in @fix_plan.md; nothing changed since the run started (COMPLETION_MODE=strict)"
				if msg := r.Stop.Sentence(); !strings.HasPrefix(msg, want) {
					t.Errorf("stop line %q, want it to begin %q", msg, want)
				}
				if h.rec.hasLine("has completed the project") {
					t.Errorf("a refused run says it completed:\n%s", h.rec.logText())
				}
			})
		})
	}
}

// "Completed" with failing tests: an agent that ticks every task and says
// it is done while TEST_COMMAND fails. QUALITY_GATE_MODE=warn completes it
// (saying so) in the default mode, as before; strict mode refuses it
// whatever the gate mode, and stops at the second claim with nothing
// changed. A failing QUALITY_GATES command under a ticked plan, which
// completes in block mode as the bash loop does, is refused too.
func TestStrictCompletionNeedsPassingGates(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		env    map[string]string
		code   int
		reason string
		calls  int
	}{
		{"warn, signals", map[string]string{"TEST_COMMAND": "echo FAIL: TestLogin; exit 1"}, engine.ExitComplete, "plan_complete", 1},
		{"warn, strict", map[string]string{"TEST_COMMAND": "echo FAIL: TestLogin; exit 1", "COMPLETION_MODE": "strict"}, engine.ExitUnproven, "completion_not_proven", 2},
		{"block QUALITY_GATES, signals", map[string]string{"QUALITY_GATES": "exit 3", "QUALITY_GATE_MODE": "block"}, engine.ExitComplete, "plan_complete", 1},
		{"block QUALITY_GATES, strict", map[string]string{"QUALITY_GATES": "exit 3", "QUALITY_GATE_MODE": "block", "COMPLETION_MODE": "strict"}, engine.ExitUnproven, "completion_not_proven", 2},
		{"passing, strict", map[string]string{"TEST_COMMAND": "true", "COMPLETION_MODE": "strict"}, engine.ExitComplete, "plan_complete", 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				h := newCtlHarness(t, false, func(n int) ctlReply {
					r := ctlReply{Raw: done("All done: every task is implemented and all tests pass.", n)}
					if n == 1 {
						r.Touch = "src/app.txt"
						r.Check = true
					}
					return r
				})
				// Both boxes ticked on call 1: the harness ticks one, the
				// plan below has one.
				if err := h.rd.WriteFile("@fix_plan.md", []byte("# Fix Plan\n- [ ] Task A\n")); err != nil {
					t.Fatal(err)
				}
				h.repo.CommitFiles("one task", nil)
				env := map[string]string{"LOOP_DELAY": "1s", "MAX_LOOPS": "12"}
				for k, v := range tc.env {
					env[k] = v
				}
				status := map[int]string{engine.ExitComplete: "completed", engine.ExitUnproven: "halted"}[tc.code]
				r := h.run(h.settings(env))
				h.checkEnd(r, tc.code, tc.reason, status)
				if n := h.callCount(); n != tc.calls {
					t.Errorf("%d calls, want %d", n, tc.calls)
				}
				if tc.code == engine.ExitUnproven {
					msg := r.Stop.Sentence()
					if !strings.Contains(msg, "claimed done 2 times while") || !strings.Contains(msg, "nothing changed since loop 1") {
						t.Errorf("stop line %q", msg)
					}
				}
				if tc.name == "passing, strict" && !h.rec.hasLine("✅ Completed (plan_complete): plan 1/1; quality gates passing") {
					t.Errorf("no evidence line:\n%s", h.rec.logText())
				}
			})
		})
	}
}

// noRequestReply is Claude Code's answer when it started without the
// prompt (anthropics/claude-code#85040): exit 0, one turn, no tool use.
const noRequestReply = `{"type":"result","subtype":"success","is_error":false,"num_turns":1,"result":"I don't see a request in your message, just system context. What would you like help with?","session_id":"sess-x","total_cost_usd":0.001,"usage":{"input_tokens":800,"output_tokens":20}}` + "\n"

// Every call is counted: the failed ones (an error that spent tokens, one
// that spent none, a reply that did nothing) are among the run's calls
// ("API calls used", status.json's calls_this_run and
// failed_calls_this_run, the next call's "retry N"), their tokens are in
// the totals, and the hour's window counts those the provider served.
func TestEveryCallCounted(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		h := newCtlHarness(t, false, func(n int) ctlReply {
			switch n {
			case 1: // failed after spending 150 tokens: the provider served it
				return ctlReply{Outcome: failed(), Raw: `{"type":"result","subtype":"error_during_execution","is_error":true,"num_turns":4,"result":"crashed","usage":{"input_tokens":100,"output_tokens":50}}` + "\n"}
			case 2: // failed at once: not served
				return ctlReply{Outcome: failed(), Stderr: "segfault\n"}
			case 3: // did nothing
				return ctlReply{Raw: noRequestReply}
			}
			return ctlReply{Text: "Did a task.", Touch: "src/app.txt", Check: true}
		})
		r := h.run(h.settings(map[string]string{"LOOP_DELAY": "1s", "MAX_LOOPS": "12"}))
		h.checkEnd(r, engine.ExitComplete, "plan_complete", "completed")
		if n := h.callCount(); n != 5 {
			t.Fatalf("%d calls, want 5", n)
		}
		st := h.status()
		if st.CallsThisRun != 5 || st.FailedCallsThisRun != 3 {
			t.Errorf("status.json calls_this_run %d failed_calls_this_run %d, want 5 and 3", st.CallsThisRun, st.FailedCallsThisRun)
		}
		// The hour's window: call 1 (served), call 3 (exited 0), 4 and 5.
		if st.CallsMadeThisHour != 4 {
			t.Errorf("calls_made_this_hour %d, want 4 (the failed call the provider refused at once is not in it)", st.CallsMadeThisHour)
		}
		// Tokens: the failed call's 150, the empty reply's 820, and the
		// two working calls' ClaudeJSON usage.
		if want := int64(150 + 820 + 2*(1200+340+5000+200)); st.InputTokens+st.OutputTokens+st.CacheReadTokens+st.CacheCreateTokens != want {
			t.Errorf("tokens in status.json %d, want %d", st.InputTokens+st.OutputTokens+st.CacheReadTokens+st.CacheCreateTokens, want)
		}
		for _, line := range []string{
			"Executing Claude Code (Call 2/100, retry 1)",
			"Executing Claude Code (Call 2/100, retry 2)",
			"❌ Claude Code exited: did nothing: it answered as if it had been given no prompt (code 0)",
			"Executing Claude Code (Call 3/100, retry 3)",
			"Executing Claude Code (Call 4/100)",
			"  - Total loops: 5",
			"  - API calls used: 5 (3 failed)",
		} {
			if !h.rec.hasLine(line) {
				t.Errorf("no line %q:\n%s", line, h.rec.logText())
			}
		}
		if n := len(h.rec.ofType(events.IterationFailed)); n != 3 {
			t.Errorf("%d iteration_failed events, want 3", n)
		}
	})
}

// A reply that did nothing is a failed call: the failure guard counts it
// and stops the run after MAX_CONSECUTIVE_FAILURES of them, as for any
// failure; the breaker never sees it.
func TestNoRequestRepliesGiveUp(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		h := newCtlHarness(t, false, func(int) ctlReply { return ctlReply{Raw: noRequestReply} })
		r := h.run(h.settings(map[string]string{"LOOP_DELAY": "1s", "MAX_LOOPS": "12", "MAX_CONSECUTIVE_FAILURES": "3"}))
		h.checkEnd(r, engine.ExitFailed, "consecutive_failures", "error")
		if n := h.callCount(); n != 3 {
			t.Errorf("%d calls, want 3", n)
		}
		if msg := r.Stop.Sentence(); !strings.Contains(msg, "failed 3 times in a row (last: did nothing: it answered as if it had been given no prompt, code 0)") {
			t.Errorf("stop line %q", msg)
		}
		if s := h.breakerState(); s != "CLOSED" {
			t.Errorf("breaker %s, want CLOSED: failed calls are not loops without progress", s)
		}
	})
}

// VERIFY_COMMAND checks each newly ticked task with the task in its
// environment: a task whose check fails (or whose check crashes) is open
// again, the next call is told why, the tick is no progress, and the run
// goes on; the verdicts are in the iterations' events.
func TestVerifyCommand(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		h := newCtlHarness(t, false, func(n int) ctlReply {
			switch n {
			case 1:
				return ctlReply{Text: "Did Task A.", Touch: "src/app.txt", Check: true}
			case 2: // fixes Task A and ticks it again
				return ctlReply{Text: "Fixed Task A.", Touch: "fixed-a", Check: true}
			}
			return ctlReply{Text: "Did Task B.", Touch: "src/app.txt", Check: true, Commit: true}
		})
		check := `case "$RALPH_TASK" in "Task A") test -f fixed-a || { echo "Task A: want fixed-a (loop $RALPH_LOOP)"; exit 1; } ;; "Task B") test -n "$RALPH_TASK_COMMITS" || kill -SEGV $$ ;; esac`
		r := h.run(h.settings(map[string]string{"LOOP_DELAY": "1s", "MAX_LOOPS": "12", "VERIFY_COMMAND": check}))
		h.checkEnd(r, engine.ExitComplete, "plan_complete", "completed")
		if n := h.callCount(); n != 3 {
			t.Errorf("%d calls, want 3", n)
		}
		if ctx := strings.Join(h.argvs[1], " "); !strings.Contains(ctx, `CHECK FAILED: you ticked "Task A", but its check VERIFY_COMMAND`) ||
			!strings.Contains(ctx, "Its output ends: Task A: want fixed-a (loop 1)") {
			t.Errorf("call 2 was not told that Task A's check failed: %q", ctx)
		}
		if !h.rec.hasLine(`❌ Check failed: "Task A": VERIFY_COMMAND`) || !h.rec.hasLine(`✅ Check passed: "Task A" (VERIFY_COMMAND)`) {
			t.Errorf("no lines for the checks:\n%s", h.rec.logText())
		}
		var verdicts []string
		for _, e := range h.rec.ofType(events.IterationCompleted) {
			for _, v := range e.Iteration.Verified {
				verdicts = append(verdicts, fmt.Sprintf("%d %s %v", e.Loop, v.Task, v.Passed))
			}
			if e.Loop == 1 && len(e.Iteration.TasksTicked) != 0 {
				t.Errorf("loop 1 ticked %q, whose check failed", e.Iteration.TasksTicked)
			}
		}
		if got, want := strings.Join(verdicts, ", "), "1 Task A false, 2 Task A true, 3 Task B true"; got != want {
			t.Errorf("verdicts %q, want %q", got, want)
		}
	})
}

// A check that crashes, or a task ticked with no change but the tick, is
// no progress: an agent that keeps ticking a task whose check keeps
// failing is stopped by the breaker, never run until --max-loops.
func TestVerifyFailedTickIsNoProgress(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		h := newCtlHarness(t, false, func(n int) ctlReply { return ctlReply{Text: "Ticked it.", Check: true} })
		r := h.run(h.settings(map[string]string{"LOOP_DELAY": "1s", "MAX_LOOPS": "12", "VERIFY_COMMAND": "kill -SEGV $$"}))
		h.checkEnd(r, engine.ExitHalted, "stagnation_detected", "halted")
		if n := h.callCount(); n != 3 {
			t.Errorf("%d calls, want 3", n)
		}
		if !h.rec.hasLine(`❌ Check failed: "Task A": VERIFY_COMMAND ` + "`kill -SEGV $$`" + ` exited 139; the task is open again`) {
			t.Errorf("no line for the crashed check:\n%s", h.rec.logText())
		}
	})
}

// --goal TEXT --check CMD: the goal is the prompt and the one task, the
// check decides; every call starts a fresh context; the project's plan is
// neither read nor written. A goal already met costs no call; an agent
// that claims done while the check fails is stopped as not proven; one
// that does nothing is stopped by the breaker.
func TestGoal(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		met    bool // the check passes before any call
		script func(h *ctlHarness) func(int) ctlReply
		code   int
		reason string
		calls  int
	}{
		{"met on call 2", false, func(h *ctlHarness) func(int) ctlReply {
			return func(n int) ctlReply {
				if n == 2 {
					return ctlReply{Text: "Made it.", Touch: "goal.txt", Commit: true}
				}
				return ctlReply{Text: "Looked around.", Touch: "src/app.txt"}
			}
		}, engine.ExitComplete, "goal_met", 2},
		{"already met", true, func(*ctlHarness) func(int) ctlReply { return working }, engine.ExitComplete, "goal_met", 0},
		{"claims done", false, func(*ctlHarness) func(int) ctlReply {
			return func(n int) ctlReply { return ctlReply{Raw: done("Done, the goal is met.", n)} }
		}, engine.ExitUnproven, "completion_not_proven", 2},
		{"does nothing", false, func(*ctlHarness) func(int) ctlReply {
			return func(int) ctlReply { return ctlReply{Text: "Nothing to do."} }
		}, engine.ExitHalted, "stagnation_detected", 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				h := newCtlHarness(t, false, nil)
				h.script = tc.script(h)
				if tc.met {
					h.commitFile("goal.txt")
				}
				plan, _, _ := h.rd.ReadFile("@fix_plan.md")
				r := h.run(h.settings(map[string]string{"LOOP_DELAY": "1s", "MAX_LOOPS": "12"},
					"--goal", "Write goal.txt", "--check", "test -f goal.txt"))
				status := map[int]string{engine.ExitComplete: "completed", engine.ExitUnproven: "halted", engine.ExitHalted: "halted"}[tc.code]
				h.checkEnd(r, tc.code, tc.reason, status)
				if n := h.callCount(); n != tc.calls {
					t.Errorf("%d calls, want %d", n, tc.calls)
				}
				for i, argv := range h.argvs {
					a := strings.Join(argv, " ")
					if strings.Contains(a, "--resume") {
						t.Errorf("call %d resumed a session: %q", i+1, a)
					}
					if !strings.Contains(a, "Write goal.txt") || !strings.Contains(a, "test -f goal.txt") || strings.Contains(a, "Do the next task.") {
						t.Errorf("call %d's prompt is not the goal's: %q", i+1, a)
					}
				}
				if after, _, _ := h.rd.ReadFile("@fix_plan.md"); string(after) != string(plan) {
					t.Errorf("the project's plan changed: %q", after)
				}
				if tc.code == engine.ExitComplete && !h.rec.hasLine("✅ Completed (goal_met): the goal's check `test -f goal.txt` passes") {
					t.Errorf("no evidence line:\n%s", h.rec.logText())
				}
			})
		})
	}
}

// commitFile commits a new file name into h's project.
func (h *ctlHarness) commitFile(name string) {
	h.t.Helper()
	if err := os.WriteFile(filepath.Join(h.dir, name), []byte("x\n"), 0o644); err != nil {
		h.t.Fatal(err)
	}
	h.repo.CommitFiles("add "+name, func(p string) bool { return p == name })
}
