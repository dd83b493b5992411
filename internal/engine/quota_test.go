package engine_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/ralphloop/ralph_loop/internal/engine"
	"github.com/ralphloop/ralph_loop/internal/events"
	"github.com/ralphloop/ralph_loop/internal/fakeagent"
	"github.com/ralphloop/ralph_loop/internal/ledger"
	"github.com/ralphloop/ralph_loop/internal/quota"
	"github.com/ralphloop/ralph_loop/internal/ralphdir"
	"github.com/ralphloop/ralph_loop/internal/supervise"
)

// The usage governor in virtual time (docs/USAGE-LIMITS.md): the loop
// keeps the machine's usage ledger in a file (ledger.Governor, as in
// production), and its calls print the usage reports the drivers parse.

// govern turns the governor on for h's loop, with the ledger at path, as
// run id of pid.
func govern(h *ctlHarness, path, id string, pid int) *ledger.Governor {
	g := ledger.NewGovernor(ledger.Options{
		File: ledger.Open(path, func(s string) { h.t.Logf("ledger: %s", s) }, time.Now),
		Run:  quota.Run{ID: quota.RunKey(id, pid), PID: pid, Project: h.dir},
		Warn: func(s string) { h.t.Errorf("governor: %s", s) },
	})
	h.quota = g
	return g
}

// recorded is a recorded usage report of analysis/testdata/usage, its
// reset time (1771390800 there) moved to reset.
func recorded(t *testing.T, name string, reset time.Time) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "analysis", "testdata", "usage", name))
	if err != nil {
		t.Fatal(err)
	}
	return strings.ReplaceAll(string(b), "1771390800", strconv.FormatInt(reset.Unix(), 10))
}

// claudeCall is a Claude stream-json call that reported rate (a
// rate_limit_event line, or none) and spent tokens input tokens.
func claudeCall(rate string, tokens int, n int) string {
	result := fmt.Sprintf(`{"type":"result","subtype":"success","is_error":false,"num_turns":1,"result":%q,"session_id":"sess-%d","total_cost_usd":0.01,"usage":{"input_tokens":%d,"output_tokens":0,"cache_read_input_tokens":0,"cache_creation_input_tokens":0}}`,
		"Did a task.\n"+fakeagent.StatusBlock("IN_PROGRESS", false, 1), n, tokens)
	if rate == "" {
		return result + "\n"
	}
	return rate + "\n" + result + "\n"
}

func limitEvent(status, window string, reset time.Time, utilization float64) string {
	if utilization < 0 {
		return fmt.Sprintf(`{"type":"rate_limit_event","rate_limit_info":{"status":%q,"resetsAt":%d,"rateLimitType":%q}}`, status, reset.Unix(), window)
	}
	return rateLine(status, window, reset.Unix(), utilization)
}

// plan gives h's project a plan of n open tasks.
func plan(h *ctlHarness, n int) {
	var b strings.Builder
	b.WriteString("# Fix Plan\n")
	for i := range n {
		fmt.Fprintf(&b, "- [ ] Task %d\n", i+1)
	}
	if err := os.WriteFile(filepath.Join(h.dir, ".ralph", "@fix_plan.md"), []byte(b.String()), 0o644); err != nil {
		h.t.Fatal(err)
	}
	h.repo.CommitFiles("plan", nil)
}

func usageWaits(h *ctlHarness) []ctlWait {
	var out []ctlWait
	for _, w := range h.rec.waits() {
		if w.Kind == events.WaitUsageSoft {
			out = append(out, w)
		}
	}
	return out
}

// A soft threshold of one window (Claude's recorded allowed_warning, 82 %
// of seven_day): no call until that window resets, a wait with its
// countdown; the other window's hard threshold is not reached; the run
// then goes on and completes.
func TestQuotaSoftPerWindow(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		reset := bubbleStart.Add(2 * time.Hour)
		h := newCtlHarness(t, false, func(n int) ctlReply {
			if n == 1 {
				return ctlReply{Raw: recorded(t, "claude_stream_allowed_warning.jsonl", reset), Check: true, Touch: "src/app.txt"}
			}
			return ctlReply{Text: "Did a task.", Check: true, Touch: "src/app.txt"}
		})
		govern(h, filepath.Join(h.dir, "..", filepath.Base(h.dir)+"-ledger.json"), "run", 1)
		r := h.run(h.settings(map[string]string{"LOOP_DELAY": "0", "USAGE_LIMITS": "seven_day:soft:80,five_hour:hard:95"}))
		h.checkEnd(r, engine.ExitComplete, "plan_complete", "completed")
		if got := usageWaits(h); len(got) != 1 || got[0].Delay != 2*time.Hour+5*time.Second {
			t.Fatalf("usage_soft waits %+v, want one of 2h0m5s", got)
		}
		lim := h.rec.ofType(events.UsageLimited)
		if len(lim) != 1 || lim[0].Wait != events.WaitUsageSoft || lim[0].Action != "usage_soft" || lim[0].Status != "paused" ||
			lim[0].Reason != "usage_soft (seven_day resets 2000-01-01T02:00:00Z)" {
			t.Fatalf("usage_limited events %+v", lim)
		}
		if starts := h.rec.starts(bubbleStart); len(starts) != 2 || starts[1] < 2*time.Hour {
			t.Errorf("calls started at %v: the second must wait for the reset", starts)
		}
		for _, want := range []string{
			"Usage of the seven_day window reached 82%, USAGE_LIMITS seven_day:soft:80: no new call until it resets",
			"seven_day 82% reported at ", "this machine: 1 call, 47k tokens",
		} {
			if !h.rec.hasLine(want) {
				t.Errorf("the log lacks %q:\n%s", want, h.rec.logText())
			}
		}
		h.rec.checkWaitPairs(t)
	})
}

// A hard threshold of one window (Codex's recorded snapshot: primary 92 %,
// secondary 41.5 %) stops the run before the next call, exit 9, with its
// own exit reason; the same threshold on the other window does not.
func TestQuotaHardPerWindow(t *testing.T) {
	for _, tc := range []struct {
		limits string
		code   int
		reason string
		calls  int
	}{
		{"primary:hard:90", engine.ExitUsagePace, "usage_limits (primary resets 2000-01-01T05:00:00Z)", 1},
		{"secondary:hard:90", engine.ExitMaxLoops, "max_loops", 2},
		{"*:hard:41.5", engine.ExitUsagePace, "usage_limits (primary resets 2000-01-01T05:00:00Z)", 1},
	} {
		t.Run(tc.limits, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				reset := bubbleStart.Add(5 * time.Hour)
				h := newCtlHarness(t, false, func(n int) ctlReply {
					return ctlReply{Raw: recorded(t, "codex_rate_limit_snapshot.jsonl", reset), Touch: "src/app.txt"}
				})
				govern(h, filepath.Join(t.TempDir(), "ledger.json"), "run", 1)
				r := h.run(h.settings(map[string]string{"LOOP_DELAY": "0", "PLATFORM_DRIVER": "codex", "USAGE_LIMITS": tc.limits, "MAX_LOOPS": "2"}, "--max-loops", "2"))
				h.checkEnd(r, tc.code, tc.reason, "stopped")
				if h.callCount() != tc.calls {
					t.Errorf("calls %d, want %d", h.callCount(), tc.calls)
				}
				if tc.code != engine.ExitUsagePace {
					return
				}
				if r.Action != "usage_stop" || r.Stop.Kind != events.StopUsageHard || r.Stop.Usage.Window != "primary" {
					t.Errorf("result %+v", r)
				}
				want := "usage of the primary window on this machine reached 92% (USAGE_LIMITS " + tc.limits + "); it resets at " + local(reset)
				if got := r.Stop.Sentence(); !strings.HasPrefix(got, want) {
					t.Errorf("stop line %q, want %q…", got, want)
				}
			})
		})
	}
}

// The reserve: a share of every window the loops leave alone, a soft stop
// at 100 minus it, said in the wait's line.
func TestQuotaReserve(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		reset := bubbleStart.Add(time.Hour)
		h := newCtlHarness(t, false, func(n int) ctlReply {
			if n == 1 {
				return ctlReply{Raw: recorded(t, "codex_rate_limit_snapshot.jsonl", reset), Check: true, Touch: "src/app.txt"}
			}
			return ctlReply{Raw: `{"type":"item.completed","item":{"id":"i","type":"agent_message","text":"Did a task."}}` + "\n", Check: true, Touch: "src/app.txt"}
		})
		govern(h, filepath.Join(t.TempDir(), "ledger.json"), "run", 1)
		r := h.run(h.settings(map[string]string{"LOOP_DELAY": "0", "PLATFORM_DRIVER": "codex", "USAGE_RESERVE_PERCENT": "10"}))
		h.checkEnd(r, engine.ExitComplete, "plan_complete", "completed")
		if got := usageWaits(h); len(got) != 1 || got[0].Delay != time.Hour+5*time.Second {
			t.Fatalf("usage_soft waits %+v, want one of 1h0m5s", got)
		}
		for _, want := range []string{
			"Usage of the primary window reached 92%, USAGE_RESERVE_PERCENT=10: no new call until it resets",
			"reserve: 10% of every window kept for you (the loops wait for the reset at 90%)",
		} {
			if !h.rec.hasLine(want) {
				t.Errorf("the log lacks %q:\n%s", want, h.rec.logText())
			}
		}
	})
}

// Claude reports a figure only now and then. Between two figures the
// ledger learns what a token uses; a call without one is estimated (and
// said so), and the estimate holds the calls at a soft threshold; a real
// figure corrects it.
func TestQuotaEstimateCorrectedByRealReport(t *testing.T) {
	for _, tc := range []struct {
		name  string
		third string  // what call 3 reports
		want  float64 // the use before call 4
		est   bool
		waits int
	}{
		{"estimated", "", 80, true, 1},
		{"corrected", "0.72", 72, false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				reset := bubbleStart.Add(5 * time.Hour)
				var g *ledger.Governor
				var before4 *quota.Reading
				h := newCtlHarness(t, false, func(n int) ctlReply {
					rate := limitEvent("allowed", "five_hour", reset, -1)
					switch n {
					case 1:
						rate = limitEvent("allowed_warning", "five_hour", reset, 0.60)
					case 2:
						rate = limitEvent("allowed_warning", "five_hour", reset, 0.70)
					case 3:
						if tc.third != "" {
							u, _ := strconv.ParseFloat(tc.third, 64)
							rate = limitEvent("allowed_warning", "five_hour", reset, u)
						}
					case 4:
						for _, r := range g.Look(context.Background(), "claude-code", time.Now()) {
							if r.Window == "five_hour" {
								before4 = &r
							}
						}
					}
					return ctlReply{Raw: claudeCall(rate, 1000, n), Touch: "src/app.txt", Check: n == 4}
				})
				plan(h, 1)
				g = govern(h, filepath.Join(t.TempDir(), "ledger.json"), "run", 1)
				r := h.run(h.settings(map[string]string{"LOOP_DELAY": "0", "USAGE_LIMITS": "five_hour:soft:78"}))
				h.checkEnd(r, engine.ExitComplete, "plan_complete", "completed")
				if before4 == nil || before4.Used == nil || *before4.Used != tc.want && tc.waits == 0 || before4.Estimated != tc.est {
					t.Fatalf("the reading before call 4: %+v; want %v%% (estimated %v)", before4, tc.want, tc.est)
				}
				if got := usageWaits(h); len(got) != tc.waits {
					t.Fatalf("usage_soft waits %+v, want %d", got, tc.waits)
				}
				if tc.waits > 0 && !h.rec.hasLine("Usage of the five_hour window reached 80% (estimated), USAGE_LIMITS five_hour:soft:78") {
					t.Errorf("the wait's line does not say the estimate:\n%s", h.rec.logText())
				}
				if tc.waits > 0 && !h.rec.hasLine("five_hour 80% (estimated): 70% reported at ") {
					t.Errorf("the reading does not say what the estimate rests on:\n%s", h.rec.logText())
				}
			})
		})
	}
}

// The projection: at the last hour's burn the window reaches a threshold
// before it resets; usage_projected says so once per threshold and
// period, whatever the calls after it.
func TestQuotaProjection(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		reset := bubbleStart.Add(5 * time.Hour)
		h := newCtlHarness(t, false, func(n int) ctlReply {
			rate := limitEvent("allowed", "five_hour", reset, -1)
			if n <= 2 {
				rate = limitEvent("allowed_warning", "five_hour", reset, []float64{0.40, 0.45}[n-1])
			}
			return ctlReply{Raw: claudeCall(rate, 1000, n), Touch: "src/app.txt", Took: 10 * time.Minute, Check: n == 4}
		})
		plan(h, 1)
		govern(h, filepath.Join(t.TempDir(), "ledger.json"), "run", 1)
		r := h.run(h.settings(map[string]string{"LOOP_DELAY": "0", "USAGE_LIMITS": "five_hour:soft:90"}))
		h.checkEnd(r, engine.ExitComplete, "plan_complete", "completed")
		ps := h.rec.ofType(events.UsageProjected)
		if len(ps) != 1 || ps[0].Projection == nil {
			t.Fatalf("usage_projected events %+v, want one", ps)
		}
		p := ps[0].Projection
		// After call 2 (20 min in): 45 %, 5 % per 1000 tokens, 2000 tokens
		// in the last hour: 10 % an hour; 90 % in 4.5 h, before the reset at 5 h.
		if p.Window != "five_hour" || p.Threshold != "five_hour:soft:90" || p.Kind != "soft" || p.UsedPercent != 45 || p.Estimated ||
			p.PerHour != 10 || !p.ReachesAt.Equal(bubbleStart.Add(20*time.Minute+270*time.Minute)) || !p.ResetsAt.Equal(reset) {
			t.Errorf("projection %+v", p)
		}
		if !h.rec.hasLine("📈 Usage: at this rate (10%/h) the five_hour window reaches 90% (USAGE_LIMITS five_hour:soft:90) at ") {
			t.Errorf("no projection line:\n%s", h.rec.logText())
		}
	})
}

// Two loops on one ledger: the second decides from the first's figure and
// its own calls since, and stops at a hard threshold its own reports never
// reached; USAGE_STOP_PERCENT is *:hard:N on the ledger too.
func TestQuotaTwoLoopsOneLedger(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "ledger.json")
		reset := bubbleStart.Add(5 * time.Hour)
		a := newCtlHarness(t, false, func(n int) ctlReply {
			return ctlReply{Raw: claudeCall(limitEvent("allowed_warning", "five_hour", reset, []float64{0.60, 0.70}[n-1]), 1000, n), Touch: "src/app.txt"}
		})
		govern(a, path, "a", 1)
		ra := a.run(a.settings(map[string]string{"LOOP_DELAY": "0"}, "--max-loops", "2"))
		a.checkEnd(ra, engine.ExitMaxLoops, "max_loops", "stopped")

		b := newCtlHarness(t, false, func(n int) ctlReply {
			return ctlReply{Raw: claudeCall(limitEvent("allowed", "five_hour", reset, -1), 1000, n), Touch: "src/app.txt"}
		})
		plan(b, 10)
		govern(b, path, "b", 2)
		rb := b.run(b.settings(map[string]string{"LOOP_DELAY": "0", "USAGE_LIMITS": "five_hour:hard:90"}, "--max-loops", "5"))
		// 70 % (a's figure) + 10 % per 1000 tokens: 90 % after b's second call.
		b.checkEnd(rb, engine.ExitUsagePace, "usage_limits (five_hour resets 2000-01-01T05:00:00Z)", "stopped")
		if b.callCount() != 2 {
			t.Errorf("b made %d calls, want 2", b.callCount())
		}
		if got := rb.Stop.Sentence(); !strings.Contains(got, "five_hour window on this machine reached 90% (estimated)") {
			t.Errorf("stop line %q", got)
		}

		c := newCtlHarness(t, false, func(n int) ctlReply { t.Errorf("c made call %d past the threshold", n); return ctlReply{} })
		govern(c, path, "c", 3)
		rc := c.run(c.settings(map[string]string{"LOOP_DELAY": "0", "USAGE_STOP_PERCENT": "85"}))
		c.checkEnd(rc, engine.ExitUsagePace, "usage_stop_percent (five_hour resets 2000-01-01T05:00:00Z)", "stopped")
		if got := rc.Stop.Sentence(); !strings.Contains(got, "(USAGE_STOP_PERCENT=85)") {
			t.Errorf("stop line %q", got)
		}
	})
}

// A soft threshold whose window resets further away than
// USAGE_LIMIT_MAX_WAIT is not waited for, as no usage wait is: exit 8,
// and the stop line says which threshold and how to wait anyway.
func TestQuotaSoftTooFar(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		reset := bubbleStart.Add(72 * time.Hour)
		h := newCtlHarness(t, false, func(n int) ctlReply {
			return ctlReply{Raw: recorded(t, "claude_stream_allowed_warning.jsonl", reset), Touch: "src/app.txt"}
		})
		govern(h, filepath.Join(t.TempDir(), "ledger.json"), "run", 1)
		r := h.run(h.settings(map[string]string{"LOOP_DELAY": "0", "USAGE_LIMITS": "seven_day:soft:80"}))
		h.checkEnd(r, engine.ExitUsageLimit, "usage_limit_max_wait (seven_day resets 2000-01-04T00:00:00Z)", "stopped")
		if h.callCount() != 1 || len(usageWaits(h)) != 0 {
			t.Errorf("calls %d, waits %+v", h.callCount(), usageWaits(h))
		}
		want := "usage of the seven_day window on this machine reached 82% (USAGE_LIMITS seven_day:soft:80), and it resets at " + local(reset) +
			", later than USAGE_LIMIT_MAX_WAIT=6h0m0s: run ralph_loop again after the reset (USAGE_LIMIT_MAX_WAIT=0 waits however long)"
		if got := r.Stop.Sentence(); got != want {
			t.Errorf("stop line\n got %q\nwant %q", got, want)
		}
	})
}

// The soft wait is a wait as every other: Ctrl+C on a terminal lets the
// next call go (the window is still past its threshold after it, so the
// loop waits again), and --pause during the wait pauses the loop once the
// window has reset, before any call.
func TestQuotaSoftWaitSkipAndPause(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		reset := bubbleStart.Add(2 * time.Hour)
		h := newCtlHarness(t, true, func(n int) ctlReply {
			return ctlReply{Raw: recorded(t, "claude_stream_allowed_warning.jsonl", reset), Touch: "src/app.txt"}
		})
		govern(h, filepath.Join(t.TempDir(), "ledger.json"), "run", 1)
		t0 := time.Now()
		done := h.start(h.settings(map[string]string{"LOOP_DELAY": "0", "MAX_LOOPS": "3", "USAGE_LIMITS": "seven_day:soft:80"}))
		time.Sleep(10 * time.Second) // in the first soft wait
		if got := h.stopper.Signal(os.Interrupt); got != "skip" {
			t.Fatalf("Ctrl+C during the soft wait: %s, want skip", got)
		}
		time.Sleep(time.Minute) // call 2 went at 12 s; the loop waits again
		if n := h.callCount(); n != 2 {
			t.Fatalf("%d calls after the skip, want 2", n)
		}
		if err := h.rd.WriteFile(ralphdir.PauseFile, []byte("paused\n")); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Until(reset.Add(10 * time.Minute))) // the window reset, the loop paused
		if n := h.callCount(); n != 2 {
			t.Fatalf("%d calls while paused, want 2", n)
		}
		if st := h.status(); st.Status != "paused" {
			t.Errorf("status.json while paused after the soft wait: %q", st.Status)
		}
		time.Sleep(500 * time.Millisecond)
		if err := h.rd.Remove(ralphdir.PauseFile); err != nil {
			t.Fatal(err)
		}
		h.checkEnd(<-done, engine.ExitMaxLoops, "max_loops", "stopped")
		// Resumed at the pause's next poll (1 s) after the pause file went.
		if diff := cmp.Diff(secs(0, 12, (2*time.Hour+10*time.Minute+time.Second).Seconds()), h.rec.starts(t0)); diff != "" {
			t.Errorf("iteration start times (-want +got):\n%s", diff)
		}
		waits := usageWaits(h)
		if len(waits) != 2 || !waits[0].Skipped || waits[1].Skipped || waits[1].Delay != reset.Add(5*time.Second).Sub(t0.Add(12*time.Second)) {
			t.Errorf("usage_soft waits %+v, want a skipped one, then one until the reset", waits)
		}
		if len(h.rec.ofType(events.Paused)) != 1 || len(h.rec.ofType(events.Resumed)) != 1 {
			t.Errorf("paused/resumed events: %d/%d", len(h.rec.ofType(events.Paused)), len(h.rec.ofType(events.Resumed)))
		}
	})
}

// A limit only a text CLI's words tell of (Copilot's "5-hour limit
// reached … try again in 3 hours") is a rejected window in the ledger,
// 100 % of it used until its reset: another loop whose threshold covers
// that window waits for the reset without spending a call to find out.
func TestQuotaTextLimitHoldsOtherLoops(t *testing.T) {
	for _, tc := range []struct{ said, window string }{
		{"Error: 5-hour limit reached. Try again in 3 hours.", "five_hour"},
		{"Error: You have hit your usage limit. Try again in 3 hours.", "unknown"},
	} {
		t.Run(tc.window, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				path := filepath.Join(t.TempDir(), "ledger.json")
				a := newCtlHarness(t, false, func(n int) ctlReply {
					return ctlReply{Outcome: failed(), Raw: "Working on it.\n" + tc.said + "\n"}
				})
				govern(a, path, "a", 1)
				ra := a.run(a.settings(map[string]string{"LOOP_DELAY": "0", "PLATFORM_DRIVER": "copilot", "USAGE_LIMIT_MAX_WAIT": "1h", "USAGE_LIMITS": "five_hour:soft:90"}))
				a.checkEnd(ra, engine.ExitUsageLimit, "usage_limit_max_wait ("+strings.Replace(tc.window, "unknown", "window unknown", 1)+" resets 2000-01-01T03:00:00Z)", "stopped")

				t0 := time.Now()
				b := newCtlHarness(t, false, func(n int) ctlReply { return ctlReply{Text: "Did a task.", Check: true, Touch: "src/app.txt"} })
				govern(b, path, "b", 2)
				rb := b.run(b.settings(map[string]string{"LOOP_DELAY": "0", "PLATFORM_DRIVER": "copilot", "USAGE_LIMITS": "*:soft:95"}))
				b.checkEnd(rb, engine.ExitComplete, "plan_complete", "completed")
				waits := usageWaits(b)
				if len(waits) != 1 || waits[0].Delay != bubbleStart.Add(3*time.Hour+5*time.Second).Sub(t0) {
					t.Fatalf("b's usage_soft waits %+v, want one until the reset (3 h after a's call)", waits)
				}
				if starts := b.rec.starts(t0); len(starts) == 0 || starts[0] < bubbleStart.Add(3*time.Hour).Sub(t0) {
					t.Errorf("b's calls started at %v: the first must wait for the reset", starts)
				}
				if want := "Usage of the " + tc.window + " window reached 100%, USAGE_LIMITS *:soft:95: no new call until it resets"; !b.rec.hasLine(want) {
					t.Errorf("b's log lacks %q:\n%s", want, b.rec.logText())
				}
			})
		})
	}
}

// A call the provider served but the loop stopped before reading its
// output (the output cap) still counts in the usage
// ledger, as a call of tokens unknown: the other loops' estimate by calls
// sees it.
func TestQuotaServedCallWithoutOutputRecorded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "ledger.json")
		h := newCtlHarness(t, false, func(n int) ctlReply {
			return ctlReply{Outcome: &supervise.Outcome{Reason: supervise.OutputTooLarge}}
		})
		govern(h, path, "run", 1)
		h.run(h.settings(map[string]string{"LOOP_DELAY": "0", "MAX_LOOPS": "1"}))
		b, err := ledger.Open(path, nil, time.Now).Peek()
		if err != nil {
			t.Fatal(err)
		}
		if a := b.Accounts["claude-code"]; a == nil || a.Calls != 1 || a.Tokens != 0 || len(b.Runs) != 1 || b.Runs[0].Calls != 1 {
			t.Errorf("the ledger after a call stopped at the output cap: %+v, runs %+v", a, b.Runs)
		}
	})
}
