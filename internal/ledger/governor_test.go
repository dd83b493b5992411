package ledger

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/ralphloop/ralph_loop/internal/quota"
	"github.com/ralphloop/ralph_loop/internal/supervise"
)

func governor(p, id string, pid int, w *warnings) *Governor {
	return NewGovernor(Options{
		File: Open(p, w.add, fixed), Run: quota.Run{ID: quota.RunKey(id, pid), PID: pid, Project: "/home/me/" + id},
		Account: func(d string) string { return Account(d, func(string) string { return "" }) }, Warn: w.add,
	})
}

func reading(rs []quota.Reading, window string) *quota.Reading {
	for i := range rs {
		if rs[i].Window == window {
			return &rs[i]
		}
	}
	return nil
}

// Two runs on one ledger: each sees the other's calls and reports, and
// which runs spent the window.
func TestTwoRunsShareTheLedger(t *testing.T) {
	p := filepath.Join(t.TempDir(), FileName)
	var w warnings
	a, b := governor(p, "a", 10, &w), governor(p, "b", 20, &w)
	reset := t0.Add(3 * time.Hour)
	a.Record("codex", t0, 1000, []quota.Report{{Window: "primary", Used: new(40.0), ResetsAt: reset, Minutes: 300}})
	b.Record("codex", t0.Add(time.Minute), 3000, nil)
	rs := a.Look(context.Background(), "codex", t0.Add(2*time.Minute))
	r := reading(rs, "primary")
	if r == nil || *r.Reported != 40 || r.CallsSince != 1 || r.TokensSince != 3000 || r.Calls != 2 || len(r.Runs) != 2 ||
		r.Runs[0].Project != "/home/me/b" || r.Runs[0].Tokens != 3000 || r.Runs[1].PID != 10 {
		t.Fatalf("a's reading after b's call: %+v", r)
	}
	if a.Look(context.Background(), "claude-code", t0) != nil {
		t.Error("another account has readings")
	}
	if len(w) != 0 {
		t.Errorf("warnings %q", w)
	}
}

// A ledger that cannot be written (locked by a stopped process) is said
// once; the run decides from the book as last read and its own calls,
// and writes those calls once the ledger is free again.
func TestGovernorWithoutTheLedger(t *testing.T) {
	p := filepath.Join(t.TempDir(), FileName)
	var w warnings
	g := governor(p, "a", 10, &w)
	g.Record("codex", t0, 100, []quota.Report{{Window: "primary", Used: new(10.0)}})
	c := holder(t, p)
	synctest.Test(t, func(t *testing.T) { // each update waits lockWait, in virtual time
		g.Record("codex", t0.Add(time.Minute), 100, nil)
		// Within a minute of the failure the ledger is not tried again:
		// no wait for the lock.
		start := time.Now()
		if rs := g.Look(context.Background(), "codex", t0.Add(90*time.Second)); time.Since(start) != 0 || len(rs) != 1 {
			t.Errorf("a look within the minute waited %s (%d readings)", time.Since(start), len(rs))
		}
		g.Record("codex", t0.Add(2*time.Minute), 100, nil)
		rs := g.Look(context.Background(), "codex", t0.Add(3*time.Minute))
		if r := reading(rs, "primary"); r == nil || r.Calls != 3 || r.CallsSince != 2 {
			t.Fatalf("from memory: %+v", r)
		}
	})
	if len(w) != 1 || !strings.Contains(w[0], "is locked by process") || !strings.Contains(w[0], "this run decides from its own calls") {
		t.Fatalf("warnings %q", w)
	}
	c.Process.Kill()
	c.Wait()
	g.Record("codex", t0.Add(4*time.Minute), 100, nil)
	b, err := Open(p, nil, fixed).Peek()
	if err != nil || b.Accounts["codex"].Calls != 4 {
		t.Fatalf("the ledger after the lock was freed: %+v, %v", b, err)
	}
	if len(w) != 2 || !strings.Contains(w[1], "written again, with the 2 call(s) of this run it missed") {
		t.Errorf("warnings %q", w)
	}
}

// No place for a ledger: said once, and the run's own calls decide.
func TestGovernorWithNoLedgerPath(t *testing.T) {
	var w warnings
	_, perr := Path(func(string) string { return "" })
	g := NewGovernor(Options{PathErr: perr, Run: quota.Run{ID: "r#1"}, Warn: w.add})
	g.Record("codex", t0, 100, []quota.Report{{Window: "primary", Used: new(50.0)}})
	g.Record("codex", t0, 100, nil)
	if r := reading(g.Look(context.Background(), "codex", t0), "primary"); r == nil || *r.Reported != 50 || r.CallsSince != 1 {
		t.Fatalf("own calls: %+v", r)
	}
	if len(w) != 1 || !strings.Contains(w[0], "no place for the usage ledger: $HOME is not set; set RALPH_USAGE_LEDGER to a file of yours; this run decides from its own calls only") {
		t.Errorf("warnings %q", w)
	}
	if g.Ledger() != "" {
		t.Error("a ledger path without a file")
	}
}

// The probe runs at most once a minute on the machine (the first run to
// look runs it), its report is a real figure ("probe"); a failing or
// unreadable probe is said once.
func TestProbe(t *testing.T) {
	p := filepath.Join(t.TempDir(), FileName)
	var w warnings
	runs := 0
	out := `{"five_hour":{"utilization":42,"resets_at":"2026-02-18T05:00:00Z"}}`
	fake := func(_ context.Context, c supervise.Command, o supervise.Options) supervise.Outcome {
		runs++
		if c.Argv[len(c.Argv)-1] != "my-probe --json" || o.Timeout != probeTimeout {
			t.Errorf("probe run as %q with %s", c.Argv, o.Timeout)
		}
		o.Stdout.Write([]byte(out))
		return supervise.Outcome{Reason: supervise.Exited}
	}
	mk := func(id string, pid int) *Governor {
		return NewGovernor(Options{File: Open(p, w.add, fixed), Run: quota.Run{ID: quota.RunKey(id, pid), PID: pid}, Probe: "my-probe --json", Warn: w.add, RunCmd: fake})
	}
	a, b := mk("a", 1), mk("b", 2)
	r := reading(a.Look(context.Background(), "claude-code", t0), "five_hour")
	if r == nil || *r.Reported != 42 || r.ReportedBy != "probe" || runs != 1 {
		t.Fatalf("after the probe: %+v (%d runs)", r, runs)
	}
	b.Look(context.Background(), "claude-code", t0.Add(30*time.Second))
	if runs != 1 {
		t.Fatalf("the probe ran again within a minute (%d runs)", runs)
	}
	out = "oops"
	b.Look(context.Background(), "claude-code", t0.Add(61*time.Second))
	b.Look(context.Background(), "claude-code", t0.Add(122*time.Second))
	if runs != 3 || len(w) != 1 || !strings.Contains(w[0], "USAGE_PROBE_COMMAND's output is no usage report: it did not print one JSON object") {
		t.Errorf("%d runs, warnings %q", runs, w)
	}
}

// The probe runs through supervise with bash -c, the person's command
// line as it is written (a pipe works).
func TestProbeRealCommand(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("bash")
	}
	p := filepath.Join(t.TempDir(), FileName)
	script := filepath.Join(t.TempDir(), "probe.json")
	os.WriteFile(script, []byte(`{"rate_limits":{"primary":{"used_percent":61,"window_minutes":300,"resets_in_seconds":600}}}`), 0o600)
	var w warnings
	g := NewGovernor(Options{File: Open(p, w.add, fixed), Run: quota.Run{ID: "r#1"}, Probe: "cat " + script + " | tr -d '\\n'", Warn: w.add})
	r := reading(g.Look(context.Background(), "codex", time.Now()), "primary")
	if r == nil || *r.Reported != 61 || r.ResetsAt == nil || len(w) != 0 {
		t.Fatalf("reading %+v, warnings %q", r, w)
	}
	var fw warnings
	g = NewGovernor(Options{File: Open(filepath.Join(t.TempDir(), FileName), fw.add, fixed), Run: quota.Run{ID: "r#1"}, Probe: "exit 3", Warn: fw.add})
	g.Look(context.Background(), "codex", time.Now())
	if len(fw) != 1 || !strings.Contains(fw[0], "USAGE_PROBE_COMMAND failed (exited 3)") {
		t.Errorf("warnings %q", fw)
	}
}

func TestAccount(t *testing.T) {
	env := map[string]string{"CLAUDE_CONFIG_DIR": "/home/me/.claude-work/", "CODEX_HOME": ""}
	get := func(k string) string { return env[k] }
	for driver, want := range map[string]string{
		"claude-code": "claude-code:/home/me/.claude-work", "codex": "codex", "cursor": "cursor", "command": "command",
	} {
		if got := Account(driver, get); got != want {
			t.Errorf("Account(%s) = %q, want %q", driver, got, want)
		}
	}
}
