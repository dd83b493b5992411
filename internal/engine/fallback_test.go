package engine_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/ralphloop/ralph_loop/internal/engine"
	"github.com/ralphloop/ralph_loop/internal/events"
	"github.com/ralphloop/ralph_loop/internal/supervise"
)

// synctest's clock starts at 2000-01-01 00:00 UTC: 946692000 is 02:00,
// 946688400 01:00 and 946686600 00:30.
const (
	reset0200 = 946692000
	reset0100 = 946688400
	reset0030 = 946686600
)

// claudeLimited is a Claude call stopped by its 5-hour limit, reset at
// resetsAt.
func claudeLimited(resetsAt int64) ctlReply {
	return ctlReply{Raw: fmt.Sprintf(`{"type":"rate_limit_event","rate_limit_info":{"status":"rejected","resetsAt":%d,"rateLimitType":"five_hour"}}
{"type":"result","subtype":"success","is_error":true,"api_error_status":429,"result":"You've hit your session limit","session_id":"claude-limited"}`, resetsAt),
		Outcome: &supervise.Outcome{ExitCode: 1, Reason: supervise.Exited}}
}

// codexReply is a Codex call that did some work in thread, taking took.
func codexReply(thread string, took time.Duration) ctlReply {
	return ctlReply{Took: took, Touch: "src/app.txt", Raw: `{"type":"thread.started","thread_id":"` + thread + `"}
{"type":"item.completed","item":{"id":"item_1","type":"agent_message","text":"Did some work.\n\n---RALPH_STATUS---\nSTATUS: IN_PROGRESS\nTASKS_COMPLETED_THIS_LOOP: 0\nFILES_MODIFIED: 1\nTESTS_STATUS: PASSING\nWORK_TYPE: IMPLEMENTATION\nEXIT_SIGNAL: false\nRECOMMENDATION: go on\n---END_RALPH_STATUS---"}}
{"type":"turn.completed","usage":{"input_tokens":100,"cached_input_tokens":0,"output_tokens":10}}
`}
}

// codexLimited is a Codex call stopped by its usage limit, reset at
// resetsAt.
func codexLimited(resetsAt int64) ctlReply {
	return ctlReply{Raw: fmt.Sprintf(`{"type":"thread.started","thread_id":"codex-limited"}
{"type":"error","message":"{\"type\":\"usage_limit_reached\",\"message\":\"The usage limit has been reached\",\"resets_at\":%d}"}
{"type":"turn.failed","error":{"message":"The usage limit has been reached"}}
`, resetsAt), Outcome: &supervise.Outcome{ExitCode: 1, Reason: supervise.Exited}}
}

// With FALLBACK_DRIVER=codex a limited Claude call is followed at once by
// Codex calls in Codex's own session; once Claude's reset has passed, the
// calls go back to Claude, which resumes its own session.
func TestFallbackUntilReset(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		h := newCtlHarness(t, false, func(n int) ctlReply {
			switch n {
			case 1:
				return ctlReply{Text: "Did a task.", Touch: "src/app.txt"}
			case 2:
				return claudeLimited(reset0200)
			case 3:
				return codexReply("codex-T1", time.Hour)
			case 4:
				return codexReply("codex-T1", 90*time.Minute)
			}
			return ctlReply{Text: "Did a task.", Touch: "src/app.txt"}
		})
		start := time.Now()
		r := h.run(h.settings(map[string]string{"LOOP_DELAY": "0", "MAX_LOOPS": "6", "FALLBACK_DRIVER": "codex", "MAX_CONSECUTIVE_FAILURES": "1"}))
		h.checkEnd(r, engine.ExitMaxLoops, "max_loops", "stopped")
		if got := time.Since(start); got > 3*time.Hour {
			t.Errorf("the run took %s", got)
		}
		checkFallbackCalls(t, h)
		checkFallbackSwitches(t, h)
		checkFallbackRecords(t, h)
	})
}

// checkFallbackCalls: who served each call, and which session it resumed.
func checkFallbackCalls(t *testing.T, h *ctlHarness) {
	t.Helper()
	want := []string{"claude", "claude", "codex", "codex", "claude", "claude"}
	for i, argv := range h.argvs {
		if argv[0] != want[i] {
			t.Fatalf("call %d went to %s, want %s (argvs %q)", i+1, argv[0], want[i], h.argvs)
		}
	}
	for i := 2; i < 4; i++ {
		if slices.Contains(h.argvs[i], "sess-1") || slices.Contains(h.argvs[i], "claude-limited") {
			t.Errorf("codex call %d got a Claude session id: %q", i+1, h.argvs[i])
		}
	}
	for _, c := range []struct {
		call     int
		flag, id string
		resumes  bool
	}{
		{3, "resume", "", false},
		{4, "resume", "codex-T1", true},
		{5, "--resume", "sess-1", true},
		{6, "--resume", "sess-5", true},
	} {
		if got := resumes(h.argvs[c.call-1], c.flag, c.id); got != c.resumes {
			t.Errorf("call %d resumes %s %q: %v, want %v (argv %q)", c.call, c.flag, c.id, got, c.resumes, h.argvs[c.call-1])
		}
	}
}

// checkFallbackSwitches: one switch to Codex at the limit, one back to
// Claude after its reset, and no usage-limit wait.
func checkFallbackSwitches(t *testing.T, h *ctlHarness) {
	t.Helper()
	sw := h.rec.ofType(events.DriverSwitched)
	if len(sw) != 2 {
		t.Fatalf("driver_switched events = %+v, want 2", sw)
	}
	until := time.Unix(reset0200, 0).Add(5 * time.Second)
	if e := sw[0]; e.From != "claude-code" || e.To != "codex" || e.Why != "usage_limit" || e.Until == nil || !e.Until.Equal(until) || e.ActiveDriver != "codex" || e.Status != "running" {
		t.Errorf("switch to codex = %+v", e)
	}
	if e := sw[1]; e.From != "codex" || e.To != "claude-code" || e.Why != "reset" || e.Until != nil || e.ActiveDriver != "claude-code" {
		t.Errorf("switch back = %+v", e)
	}
	if sw[1].TS.Before(until) {
		t.Errorf("switched back at %s, before the reset %s", sw[1].TS.UTC(), until.UTC())
	}
	for _, w := range h.rec.waits() {
		if w.Kind == "usage_limit" {
			t.Errorf("waited for the usage limit: %+v", w)
		}
	}
}

// checkFallbackRecords: the metrics' drivers, status.json, each driver's
// session file and the log lines.
func checkFallbackRecords(t *testing.T, h *ctlHarness) {
	t.Helper()
	var drivers []string
	for _, e := range h.rec.all() {
		if e.Iteration != nil {
			drivers = append(drivers, e.Iteration.Driver)
		}
	}
	if !slices.Equal(drivers, []string{"claude-code", "claude-code", "codex", "codex", "claude-code", "claude-code"}) {
		t.Errorf("iteration drivers = %q", drivers)
	}
	if st := h.status(); st.ActiveDriver != "claude-code" {
		t.Errorf("status.json active_driver = %q", st.ActiveDriver)
	}
	for name, want := range map[string]string{".fallback_session_id.codex": "codex-T1\n", ".claude_session_id": "sess-6\n"} {
		if got, _, _ := h.rd.ReadFile(name); string(got) != want {
			t.Errorf("%s holds %q, want %q", name, got, want)
		}
	}
	for _, l := range []string{"Claude Code is at its usage limit: going on with OpenAI Codex until", "Saved codex session: codex-T1", "Resuming codex session: codex-T1", "usage limit has reset: back to Claude Code"} {
		if !h.rec.hasLine(l) {
			t.Errorf("no log line %q in:\n%s", l, h.rec.logText())
		}
	}
}

// When the fallback is limited too, the loop waits for the earlier of the
// two resets, then goes on with the driver whose limit has passed.
func TestFallbackBothLimited(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name         string
		claude, cdx  int64
		wait         time.Duration // from the codex limit, at 00:00
		next         string
		switchesBack int
	}{
		{"claude resets first", reset0030, reset0200, 30*time.Minute + 5*time.Second, "claude", 1},
		{"codex resets first", reset0200, reset0030, 30*time.Minute + 5*time.Second, "codex", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				h := newCtlHarness(t, false, func(n int) ctlReply {
					switch n {
					case 1:
						return claudeLimited(tc.claude)
					case 2:
						return codexLimited(tc.cdx)
					}
					if tc.next == "codex" && n == 3 {
						return codexReply("codex-T2", 0)
					}
					return ctlReply{Text: "Did a task.", Touch: "src/app.txt"}
				})
				r := h.run(h.settings(map[string]string{"LOOP_DELAY": "0", "MAX_LOOPS": "3", "FALLBACK_DRIVER": "codex", "MAX_CONSECUTIVE_FAILURES": "1"}))
				h.checkEnd(r, engine.ExitMaxLoops, "max_loops", "stopped")
				var waits []ctlWait
				for _, w := range h.rec.waits() {
					if w.Kind == "usage_limit" {
						waits = append(waits, w)
					}
				}
				if len(waits) != 1 || waits[0].Delay != tc.wait {
					t.Fatalf("usage-limit waits = %+v, want one of %s", waits, tc.wait)
				}
				if lim := h.rec.ofType(events.UsageLimited); len(lim) != 1 || lim[0].ActiveDriver != "codex" {
					t.Errorf("usage_limited events = %+v", lim)
				}
				if h.argvs[0][0] != "claude" || h.argvs[1][0] != "codex" || h.argvs[2][0] != tc.next {
					t.Errorf("calls went to %s, %s, %s; want claude, codex, %s", h.argvs[0][0], h.argvs[1][0], h.argvs[2][0], tc.next)
				}
				if got := len(h.rec.ofType(events.DriverSwitched)); got != 1+tc.switchesBack {
					t.Errorf("%d driver_switched events, want %d", got, 1+tc.switchesBack)
				}
			})
		})
	}
}

// Without FALLBACK_DRIVER nothing changes: no active_driver anywhere, and a
// limited call waits as it always has.
func TestNoFallbackNoActiveDriver(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		h := newCtlHarness(t, false, func(n int) ctlReply {
			if n == 1 {
				return claudeLimited(reset0100)
			}
			return ctlReply{Text: "Did a task.", Touch: "src/app.txt"}
		})
		r := h.run(h.settings(map[string]string{"LOOP_DELAY": "0", "MAX_LOOPS": "2"}))
		h.checkEnd(r, engine.ExitMaxLoops, "max_loops", "stopped")
		for _, e := range h.rec.all() {
			if e.ActiveDriver != "" || e.Type == events.DriverSwitched {
				t.Fatalf("event %s with active_driver %q", e.Type, e.ActiveDriver)
			}
		}
		if h.argvs[1][0] != "claude" {
			t.Errorf("call 2 went to %s", h.argvs[1][0])
		}
		if b, _, _ := h.rd.ReadFile("status.json"); strings.Contains(string(b), "active_driver") {
			t.Errorf("status.json without a fallback: %s", b)
		}
	})
}

// resumes reports whether argv holds flag followed by id (any value when
// id is "").
func resumes(argv []string, flag, id string) bool {
	i := slices.Index(argv, flag)
	return i >= 0 && i+1 < len(argv) && strings.HasPrefix(argv[i+1], id)
}

// When both are limited, the wait ends at the earlier reset even when the
// call that hit the limit named a later one for its own window.
func TestFallbackBothLimitedEarlierOther(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		h := newCtlHarness(t, false, func(n int) ctlReply {
			switch n {
			case 1:
				return claudeLimited(reset0030)
			case 2:
				return codexLimited(reset0200)
			case 3:
				return claudeLimited(reset0200 + 2*3600)
			}
			return codexReply("codex-T2", 0)
		})
		r := h.run(h.settings(map[string]string{"LOOP_DELAY": "0", "MAX_LOOPS": "4", "FALLBACK_DRIVER": "codex", "MAX_CONSECUTIVE_FAILURES": "1"}))
		h.checkEnd(r, engine.ExitMaxLoops, "max_loops", "stopped")
		var waits []time.Duration
		for _, w := range h.rec.waits() {
			if w.Kind == "usage_limit" {
				waits = append(waits, w.Delay)
			}
		}
		if len(waits) != 2 || waits[1] > 2*time.Hour {
			t.Fatalf("usage-limit waits = %v, want two, the second until Codex's reset at 02:00 (not Claude's at 04:00)", waits)
		}
		if got := h.argvs[3][0]; got != "codex" {
			t.Errorf("call 4 went to %s, want codex (its reset came first)", got)
		}
	})
}

// Claude as the fallback: its version comes from its install's files at
// start-up (here the native installer's versions/2.1.330, which `claude`
// on PATH links to), as for the main CLI, so once the calls go to it its
// resumed calls are built for that version (--system-prompt-snapshot off)
// although its json output never says the version.
func TestFallbackInstalledVersion(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newCtlHarness(t, false, func(n int) ctlReply {
			if n == 1 {
				return codexLimited(reset0200)
			}
			return ctlReply{Text: "Did a task.", Touch: "src/app.txt"}
		})
		claude := nativeClaude(t, "2.1.330")
		h.lookPath = func(name string) (string, error) {
			if name == "claude" {
				return claude, nil
			}
			return "/bin/true", nil
		}
		r := h.run(h.settings(map[string]string{"LOOP_DELAY": "0", "MAX_LOOPS": "3", "PLATFORM_DRIVER": "codex", "FALLBACK_DRIVER": "claude-code"}))
		h.checkEnd(r, engine.ExitMaxLoops, "max_loops", "stopped")
		if len(h.argvs) != 3 || h.argvs[0][0] != "codex" || h.argvs[1][0] != "claude" || h.argvs[2][0] != "claude" {
			t.Fatalf("argvs = %q, want codex, then claude twice", h.argvs)
		}
		if slices.Contains(h.argvs[1], "--system-prompt-snapshot") {
			t.Errorf("a session's first call got --system-prompt-snapshot: %q", h.argvs[1])
		}
		if !resumes(h.argvs[2], "--resume", "sess-2") || !slices.Contains(h.argvs[2], "--system-prompt-snapshot") {
			t.Errorf("call 3 = %q, want --resume sess-2 --system-prompt-snapshot off", h.argvs[2])
		}
	})
}

// nativeClaude lays out Claude Code's native install of version v in a
// temporary home and returns the link on PATH (~/.local/bin/claude).
func nativeClaude(t *testing.T, v string) string {
	t.Helper()
	home := t.TempDir()
	prog := filepath.Join(home, ".local", "share", "claude", "versions", v)
	link := filepath.Join(home, ".local", "bin", "claude")
	for _, d := range []string{filepath.Dir(prog), filepath.Dir(link)} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(prog, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(prog, link); err != nil {
		t.Fatal(err)
	}
	return link
}
