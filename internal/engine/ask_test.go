package engine_test

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/ralphloop/ralph_loop/internal/ask"
	"github.com/ralphloop/ralph_loop/internal/engine"
	"github.com/ralphloop/ralph_loop/internal/events"
	"github.com/ralphloop/ralph_loop/internal/fakeagent"
	"github.com/ralphloop/ralph_loop/internal/ralphdir"
)

// asks is a reply that asks the person question in its status block.
func asks(question string) func(n int) ctlReply {
	return func(n int) ctlReply {
		return ctlReply{Raw: fakeagent.ClaudeJSON("I need a decision before I go on.\n---RALPH_STATUS---\nSTATUS: BLOCKED\n"+
			"TASKS_COMPLETED_THIS_LOOP: 0\nFILES_MODIFIED: 0\nTESTS_STATUS: NOT_RUN\nEXIT_SIGNAL: false\nQUESTION: "+question+
			"\n---END_RALPH_STATUS---", fmt.Sprintf("sess-%d", n))}
	}
}

// askOnCall2 asks on call 2 only.
func askOnCall2(n int) ctlReply {
	if n == 2 {
		return asks("Postgres or SQLite? (a) Postgres: I add a container; (b) SQLite: one file. Without an answer: SQLite.")(n)
	}
	return working(n)
}

// context is the loop context the n-th call got (its
// --append-system-prompt), "" when none.
func (h *ctlHarness) context(n int) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	if n > len(h.argvs) {
		return ""
	}
	argv := h.argvs[n-1]
	for i, a := range argv {
		if a == "--append-system-prompt" && i+1 < len(argv) {
			return argv[i+1]
		}
	}
	return ""
}

// answerAt answers the waiting question from a command at virtual time
// after, and reports the time it did.
func (h *ctlHarness) answerAt(after time.Duration, text string) <-chan time.Time {
	at := make(chan time.Time, 1)
	go func() {
		time.Sleep(after)
		if _, err := h.box.Give(text, ask.ViaCommand, time.Now()); err != nil {
			h.t.Errorf("answer: %v", err)
		}
		at <- time.Now()
	}()
	return at
}

// TestQuestionAnswered: the agent asks on call 2; no call is made while
// the loop waits (status.json says so); the answer, given 5 minutes
// later, goes into call 3's context once, marked as the person's, and
// into the events; the breaker never counts the wait.
func TestQuestionAnswered(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		h := newCtlHarness(t, false, askOnCall2)
		t0 := time.Now()
		done := h.start(h.settings(map[string]string{"MAX_LOOPS": "4", "LOOP_DELAY": "0", "ASK_TIMEOUT": "1h"}))
		time.Sleep(4 * time.Minute)
		synctest.Wait()
		if n := h.callCount(); n != 2 {
			t.Fatalf("%d calls while the question waits, want 2", n)
		}
		st := h.status()
		if st.Status != "paused" || st.LastAction != "waiting_for_answer" || st.Question == nil || !strings.HasPrefix(st.Question.Text, "Postgres or SQLite?") || st.Question.Loop != 2 {
			t.Fatalf("status.json while waiting: %+v %+v", st, st.Question)
		}
		if st.Question.AnswerFile != "" {
			t.Errorf("status.json names the answer file %s", st.Question.AnswerFile)
		}
		answered := <-h.answerAt(time.Minute, "SQLite, please.")
		r := <-done
		h.checkEnd(r, engine.ExitMaxLoops, "max_loops", "stopped")
		if h.callCount() != 4 {
			t.Errorf("%d calls, want 4", h.callCount())
		}
		starts := h.rec.starts(t0)
		if starts[2] < answered.Sub(t0) || starts[2] > answered.Sub(t0)+2*time.Second {
			t.Errorf("call 3 started at %s, the answer came at %s", starts[2], answered.Sub(t0))
		}
		answer := "ANSWER FROM THE PERSON to your question of loop 2 (\"Postgres or SQLite?"
		for n, want := range map[int]int{1: 0, 2: 0, 3: 1, 4: 0} {
			if got := strings.Count(h.context(n), answer); got != want {
				t.Errorf("call %d's context has the answer %d times, want %d: %q", n, got, want, h.context(n))
			}
		}
		if !strings.Contains(h.context(3), "): SQLite, please. — this is the person's own answer") {
			t.Errorf("call 3's context: %q", h.context(3))
		}
		asked, got := h.rec.ofType(events.QuestionAsked), h.rec.ofType(events.QuestionAnswered)
		if len(asked) != 1 || len(got) != 1 || len(h.rec.ofType(events.QuestionUnanswered)) != 0 {
			t.Fatalf("question events: %d asked, %d answered", len(asked), len(got))
		}
		a := asked[0]
		if a.Action != "waiting_for_answer" || a.Status != "paused" || a.Wait != "question" || a.Question == nil ||
			a.Question.Loop != 2 || a.Question.AnswerFile == "" || a.Question.Then != "continue" || a.DelaySecs != 3600 {
			t.Errorf("question_asked: %+v %+v", a, a.Question)
		}
		g := got[0]
		if g.Question == nil || g.Question.Answer != "SQLite, please." || g.Question.Via != "command" || g.Action != "answered" || g.Status != "running" {
			t.Errorf("question_answered: %+v %+v", g, g.Question)
		}
		if p, _ := h.box.Pending(); p != nil {
			t.Errorf("the answered question stays in the box: %+v", p)
		}
		if h.breakerState() != "CLOSED" {
			t.Errorf("breaker %s", h.breakerState())
		}
		if h.status().Question != nil {
			t.Error("status.json keeps the question after the run")
		}
	})
}

// TestQuestionUnanswered: nobody answers within ASK_TIMEOUT (virtual
// time); each ASK_TIMEOUT_ACTION does what it says, at the deadline.
func TestQuestionUnanswered(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		action string
		code   int
		reason string
		status string
		calls  int
		ctx3   string
	}{
		{"continue", engine.ExitMaxLoops, "max_loops", "stopped", 3, "NOBODY ANSWERED your question of loop 2 (\"Postgres or SQLite?"},
		{"skip", engine.ExitMaxLoops, "max_loops", "stopped", 3, "The task \"Task A\" is set aside in @fix_plan.md with the question"},
		{"stop", 13, "question_unanswered", "stopped", 2, ""},
	} {
		t.Run(tc.action, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				h := newCtlHarness(t, false, askOnCall2)
				t0 := time.Now()
				r := h.run(h.settings(map[string]string{"MAX_LOOPS": "3", "LOOP_DELAY": "0", "ASK_TIMEOUT": "10m", "ASK_TIMEOUT_ACTION": tc.action}))
				h.checkEnd(r, tc.code, tc.reason, tc.status)
				if h.callCount() != tc.calls {
					t.Fatalf("%d calls, want %d", h.callCount(), tc.calls)
				}
				un := h.rec.ofType(events.QuestionUnanswered)
				if len(un) != 1 || un[0].Reason != "timeout" || un[0].Question == nil || un[0].Question.Then != tc.action {
					t.Fatalf("question_unanswered: %+v", un)
				}
				asked := h.rec.ofType(events.QuestionAsked)[0]
				if d := un[0].TS.Sub(asked.TS); d != 10*time.Minute {
					t.Errorf("the wait took %s, want 10m", d)
				}
				if tc.calls == 3 {
					if s := h.rec.starts(t0); s[2] < asked.TS.Sub(t0)+10*time.Minute {
						t.Errorf("call 3 started at %s, before the timeout", s[2])
					}
					if !strings.Contains(h.context(3), tc.ctx3) {
						t.Errorf("call 3's context: %q", h.context(3))
					}
				}
				plan, _, _ := h.rd.ReadFile(ralphdir.FixPlan)
				switch tc.action {
				case "skip":
					if !strings.Contains(string(plan), "- [?] Task A\n  > Set aside: the agent asked in loop 2 \"Postgres or SQLite?") || un[0].Question.Task != "Task A" {
						t.Errorf("plan after skip:\n%s\nevent task %q", plan, un[0].Question.Task)
					}
				case "stop":
					if p, _ := h.box.Pending(); p == nil || p.Loop != 2 {
						t.Errorf("the question left the box: %+v", p)
					}
					fin := h.rec.ofType(events.RunFinished)[0]
					if !strings.Contains(fin.Message, "nobody answered the agent's question within ASK_TIMEOUT=10m0s") {
						t.Errorf("run_finished message: %q", fin.Message)
					}
				default:
					if strings.Contains(string(plan), "[?]") {
						t.Errorf("plan changed: %s", plan)
					}
				}
			})
		})
	}
}

// TestUnansweredAsksReachTheBreaker: an agent that asks on every call
// and is never answered is not spared by the breaker: each unanswered
// asking call counts as the loop without progress it was, so the run
// halts after CB_NO_PROGRESS_THRESHOLD of them. Answered ones never count.
func TestUnansweredAsksReachTheBreaker(t *testing.T) {
	t.Parallel()
	t.Run("unanswered", func(t *testing.T) {
		t.Parallel()
		synctest.Test(t, func(t *testing.T) {
			h := newCtlHarness(t, false, asks("Which one?"))
			r := h.run(h.settings(map[string]string{"MAX_LOOPS": "10", "LOOP_DELAY": "0", "ASK_TIMEOUT": "5m"}))
			h.checkEnd(r, engine.ExitHalted, "stagnation_detected", "halted")
			if h.callCount() != 3 {
				t.Errorf("%d calls, want 3", h.callCount())
			}
		})
	})
	t.Run("answered", func(t *testing.T) {
		t.Parallel()
		synctest.Test(t, func(t *testing.T) {
			h := newCtlHarness(t, false, asks("Which one?"))
			done := h.start(h.settings(map[string]string{"MAX_LOOPS": "5", "LOOP_DELAY": "0", "ASK_TIMEOUT": "1h"}))
			for i := 0; i < 5; i++ {
				time.Sleep(time.Minute)
				synctest.Wait()
				if _, err := h.box.Give(fmt.Sprintf("answer %d", i+1), ask.ViaDashboard, time.Now()); err != nil {
					t.Fatalf("answer %d: %v", i+1, err)
				}
			}
			r := <-done
			h.checkEnd(r, engine.ExitMaxLoops, "max_loops", "stopped")
			if h.breakerState() != "CLOSED" || len(h.rec.ofType(events.QuestionAnswered)) != 5 {
				t.Errorf("breaker %s, %d answers", h.breakerState(), len(h.rec.ofType(events.QuestionAnswered)))
			}
		})
	})
}

// TestQuestionAcrossRuns: a run stopped while it waits (here by
// ASK_TIMEOUT_ACTION=stop) leaves the question open; the person answers
// it with no loop running; the next run's first call gets the answer,
// and the question leaves the box. A question still unanswered when a
// run starts is waited on before its first call.
func TestQuestionAcrossRuns(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		h := newCtlHarness(t, false, askOnCall2)
		s := h.settings(map[string]string{"MAX_LOOPS": "5", "LOOP_DELAY": "0", "ASK_TIMEOUT": "10m", "ASK_TIMEOUT_ACTION": "stop"})
		h.checkEnd(h.run(s), 13, "question_unanswered", "stopped")

		// A second run waits before its first call, and stops again.
		h.rec = newCtlRecorder()
		h.checkEnd(h.run(s), 13, "question_unanswered", "stopped")
		if h.callCount() != 2 {
			t.Fatalf("%d calls: the second run called the agent with the question open", h.callCount())
		}
		if !h.rec.hasLine("A question an earlier run asked (loop 2) is still open") {
			t.Errorf("no line about the open question:\n%s", h.rec.logText())
		}

		if _, err := h.box.Give("SQLite.", ask.ViaCommand, time.Now()); err != nil {
			t.Fatal(err)
		}
		h.rec = newCtlRecorder()
		s.MaxLoops = 1
		h.checkEnd(h.run(s), engine.ExitMaxLoops, "max_loops", "stopped")
		if h.callCount() != 3 || !strings.Contains(h.context(3), "ANSWER FROM THE PERSON to your question of loop 2") {
			t.Errorf("call 3's context: %q", h.context(3))
		}
		if p, _ := h.box.Pending(); p != nil {
			t.Errorf("the question stays in the box: %+v", p)
		}
	})
}

// TestAnswerSurvivesAFailedCall: the call that should hear the answer
// fails; the retry hears it again, and only the call that succeeds
// closes the question.
func TestAnswerSurvivesAFailedCall(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		h := newCtlHarness(t, false, func(n int) ctlReply {
			if n == 3 {
				return ctlReply{Outcome: failed()}
			}
			return askOnCall2(n)
		})
		done := h.start(h.settings(map[string]string{"MAX_LOOPS": "4", "LOOP_DELAY": "0", "ASK_TIMEOUT": "1h"}))
		time.Sleep(time.Minute)
		synctest.Wait()
		h.box.Give("SQLite.", ask.ViaCommand, time.Now())
		h.checkEnd(<-done, engine.ExitMaxLoops, "max_loops", "stopped")
		for n, want := range map[int]bool{3: true, 4: true} {
			if strings.Contains(h.context(n), "ANSWER FROM THE PERSON") != want {
				t.Errorf("call %d's context: %q", n, h.context(n))
			}
		}
	})
}

// TestQuestionHoldsCompletion: an agent that ticks the last box and asks
// is not done: the run waits for the answer and the next call hears it
// before the plan's completion ends the run.
func TestQuestionHoldsCompletion(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		h := newCtlHarness(t, false, func(n int) ctlReply {
			r := asks("Also delete the old table?")(n)
			if n > 1 {
				r = ctlReply{Text: "Done."}
			}
			r.Check = true
			return r
		})
		if err := os.WriteFile(h.rd.Path(ralphdir.FixPlan), []byte("- [ ] Only task\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		done := h.start(h.settings(map[string]string{"MAX_LOOPS": "5", "LOOP_DELAY": "0", "ASK_TIMEOUT": "1h"}))
		time.Sleep(time.Minute)
		synctest.Wait()
		if h.callCount() != 1 {
			t.Fatalf("%d calls", h.callCount())
		}
		h.box.Give("No, keep it.", ask.ViaCommand, time.Now())
		r := <-done
		h.checkEnd(r, 0, "plan_complete", "completed")
		if h.callCount() != 2 || !strings.Contains(h.context(2), "No, keep it.") {
			t.Errorf("%d calls; call 2's context: %q", h.callCount(), h.context(2))
		}
	})
}

// TestNoWaitWithZeroTimeout: ASK_TIMEOUT=0 reports the question and goes
// on at once.
func TestNoWaitWithZeroTimeout(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		h := newCtlHarness(t, false, askOnCall2)
		t0 := time.Now()
		r := h.run(h.settings(map[string]string{"MAX_LOOPS": "3", "LOOP_DELAY": "0", "ASK_TIMEOUT": "0"}))
		h.checkEnd(r, engine.ExitMaxLoops, "max_loops", "stopped")
		if d := time.Since(t0); d > time.Second {
			t.Errorf("the run took %s", d)
		}
		if len(h.rec.ofType(events.QuestionAsked)) != 1 || len(h.rec.ofType(events.QuestionUnanswered)) != 1 {
			t.Errorf("question events missing")
		}
	})
}

// TestSignalWhileWaiting: a stop signal ends the wait and the run; the
// question stays open in the box.
func TestSignalWhileWaiting(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		h := newCtlHarness(t, false, askOnCall2)
		done := h.start(h.settings(map[string]string{"MAX_LOOPS": "5", "LOOP_DELAY": "0"}))
		time.Sleep(time.Minute)
		synctest.Wait()
		h.stopper.Signal(os.Interrupt)
		h.checkEnd(<-done, 130, "SIGINT", "stopped")
		un := h.rec.ofType(events.QuestionUnanswered)
		if len(un) != 1 || un[0].Reason != "stopped" {
			t.Errorf("question_unanswered: %+v", un)
		}
		if p, _ := h.box.Pending(); p == nil {
			t.Error("the question left the box")
		}
	})
}

// TestQuestionWithdrawsItsCompletion: a reply that asks and also says it
// is done (EXIT_SIGNAL: true) is not done: its completion signal is
// withdrawn, so it does not count toward the two the loop needs; after
// the answer, two calls that say done end the run, not one.
func TestQuestionWithdrawsItsCompletion(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		done := func(n int) ctlReply {
			return ctlReply{Raw: fakeagent.ClaudeJSON("All done.\n"+fakeagent.StatusBlock("COMPLETE", true, 0), fmt.Sprintf("sess-%d", n))}
		}
		h := newCtlHarness(t, false, func(n int) ctlReply {
			switch n {
			case 1:
				return working(n)
			case 2:
				return ctlReply{Raw: fakeagent.ClaudeJSON("Done, I think.\n---RALPH_STATUS---\nSTATUS: BLOCKED\n"+
					"TASKS_COMPLETED_THIS_LOOP: 0\nFILES_MODIFIED: 0\nTESTS_STATUS: NOT_RUN\nEXIT_SIGNAL: true\nQUESTION: Ship it as is?"+
					"\n---END_RALPH_STATUS---", "sess-2")}
			}
			return done(n)
		})
		run := h.start(h.settings(map[string]string{"MAX_LOOPS": "6", "LOOP_DELAY": "0", "ASK_TIMEOUT": "1h"}))
		time.Sleep(time.Minute)
		synctest.Wait()
		if _, err := h.box.Give("Yes.", ask.ViaCommand, time.Now()); err != nil {
			t.Fatal(err)
		}
		r := <-run
		if r.Code != 0 || h.callCount() != 4 {
			t.Fatalf("exit %d (%s) after %d calls, want 0 after 4 (the asking call's EXIT_SIGNAL withdrawn)\n%s", r.Code, r.Reason, h.callCount(), h.rec.logText())
		}
	})
}

// TestQuestionHoldsTheDonePattern: a reply that matches DONE_PATTERN and
// asks is not done either: the loop waits for the answer, and the next
// call hears it before the done pattern can end the run.
func TestQuestionHoldsTheDonePattern(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		h := newCtlHarness(t, false, func(n int) ctlReply {
			if n == 1 {
				return ctlReply{Raw: fakeagent.ClaudeJSON("Nearly there.\nSTOP\nRALPH_QUESTION: Tag the release too?", "sess-1")}
			}
			return ctlReply{Text: "Tagged it.\nSTOP", Touch: "src/app.txt"}
		})
		run := h.start(h.settings(map[string]string{"MAX_LOOPS": "5", "LOOP_DELAY": "0", "ASK_TIMEOUT": "1h", "DONE_PATTERN": `\bSTOP\b`}))
		time.Sleep(time.Minute)
		synctest.Wait()
		if h.callCount() != 1 || len(h.rec.ofType(events.QuestionAsked)) != 1 {
			t.Fatalf("%d calls, %d questions asked: the done pattern ended the wait\n%s", h.callCount(), len(h.rec.ofType(events.QuestionAsked)), h.rec.logText())
		}
		if _, err := h.box.Give("Yes, v1.0.", ask.ViaCommand, time.Now()); err != nil {
			t.Fatal(err)
		}
		h.checkEnd(<-run, engine.ExitComplete, "done_pattern", "completed")
		if h.callCount() != 2 || !strings.Contains(h.context(2), "Yes, v1.0.") {
			t.Errorf("%d calls; call 2's context: %q", h.callCount(), h.context(2))
		}
	})
}

// TestQuestionIsNoClaimInStrictMode: in COMPLETION_MODE=strict, a reply
// that asks and says EXIT_SIGNAL: true is no claim of done: after the
// answer, two claims with nothing changed stop the run as not proven,
// not one.
func TestQuestionIsNoClaimInStrictMode(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		h := newCtlHarness(t, false, func(n int) ctlReply {
			if n == 1 {
				return ctlReply{Raw: fakeagent.ClaudeJSON("All done, I think.\n---RALPH_STATUS---\nSTATUS: BLOCKED\n"+
					"TASKS_COMPLETED_THIS_LOOP: 0\nEXIT_SIGNAL: true\nQUESTION: Ship it as is?\n---END_RALPH_STATUS---", "sess-1")}
			}
			return ctlReply{Raw: done("All done! The project is complete.", n)}
		})
		run := h.start(h.settings(map[string]string{"MAX_LOOPS": "8", "LOOP_DELAY": "0", "ASK_TIMEOUT": "1h", "COMPLETION_MODE": "strict"}))
		time.Sleep(time.Minute)
		synctest.Wait()
		if _, err := h.box.Give("Yes.", ask.ViaCommand, time.Now()); err != nil {
			t.Fatal(err)
		}
		h.checkEnd(<-run, engine.ExitUnproven, "completion_not_proven", "halted")
		if n := h.callCount(); n != 3 {
			t.Errorf("%d calls, want 3 (the asking call claimed nothing)", n)
		}
	})
}

// TestQuestionHoldsTheGoal: a --goal run whose check passes after a call
// that asks waits for the answer, and the next call hears it before the
// run ends as goal_met.
func TestQuestionHoldsTheGoal(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		h := newCtlHarness(t, false, func(n int) ctlReply {
			if n == 1 {
				return ctlReply{Raw: fakeagent.ClaudeJSON("Wrote it.\nRALPH_QUESTION: Also write goal.md?", "sess-1"), Touch: "goal.txt", Commit: true}
			}
			return ctlReply{Text: "Wrote goal.md too.", Touch: "goal.md", Commit: true}
		})
		run := h.start(h.settings(map[string]string{"LOOP_DELAY": "0", "MAX_LOOPS": "5", "ASK_TIMEOUT": "1h"},
			"--goal", "Write goal.txt", "--check", "test -f goal.txt"))
		time.Sleep(time.Minute)
		synctest.Wait()
		if h.callCount() != 1 || len(h.rec.ofType(events.QuestionAsked)) != 1 {
			t.Fatalf("%d calls, %d questions asked: the met goal ended the run before the question\n%s", h.callCount(), len(h.rec.ofType(events.QuestionAsked)), h.rec.logText())
		}
		if _, err := h.box.Give("Yes.", ask.ViaCommand, time.Now()); err != nil {
			t.Fatal(err)
		}
		h.checkEnd(<-run, engine.ExitComplete, "goal_met", "completed")
		if h.callCount() != 2 || !strings.Contains(h.context(2), "ANSWER FROM THE PERSON") {
			t.Errorf("%d calls; call 2's context: %q", h.callCount(), h.context(2))
		}
	})
}
