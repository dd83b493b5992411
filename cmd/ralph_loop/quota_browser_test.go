package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/ralphloop/ralph_loop/internal/config"
	"github.com/ralphloop/ralph_loop/internal/dashboard"
	"github.com/ralphloop/ralph_loop/internal/ledger"
	"github.com/ralphloop/ralph_loop/internal/quota"
)

// The dashboard shows the usage governor's view of the machine's ledger
// (a card of the rows --status prints: thresholds, reserve, each window's
// use, the machine's spend, the runs, the projection), updates it when
// another loop records a call, and adds a "quota" object to the
// snapshot's JSON, the documented fields unchanged. A project folder's
// name stays text.
func TestDashboardQuotaInBrowser(t *testing.T) {
	t.Parallel() // a tab of the shared browser: the other tests run meanwhile
	ctx := browser(t)
	r := newScriptedRun(t)
	path := filepath.Join(t.TempDir(), "ledger.json")
	f := ledger.Open(path, nil, time.Now)
	now := time.Now()
	reset := now.Add(2 * time.Hour)
	other := quota.Run{ID: "other#7", PID: 7, Project: "/home/me/<b id=bold>api</b>"}
	record := func(run quota.Run, at time.Time, used *float64) {
		t.Helper()
		if _, err := f.Update(func(b *quota.Book) {
			b.Add(at, quota.Entry{Account: "claude-code", Run: run, Calls: 1, Tokens: 10000, By: run.ID,
				Reports: []quota.Report{{Window: "five_hour", Status: "allowed_warning", Used: used, ResetsAt: reset}}})
		}); err != nil {
			t.Fatal(err)
		}
	}
	record(other, now.Add(-20*time.Minute), new(50.0))
	record(other, now.Add(-10*time.Minute), new(55.0))

	limits, _, _ := quota.ParseLimits("five_hour:soft:85,seven_day:hard:75")
	cfg := &config.Config{MaxCallsPerHour: 100, Driver: "claude-code", UsageLimits: limits, UsageReserve: 15, UsageLedger: path}
	srv := dashboard.New([]dashboard.Project{serveProject("webproj", r.dir, cfg)}, dashboard.Options{Poll: 50 * time.Millisecond})
	l, err := dashboard.Listen("127.0.0.1:0", "", "--serve")
	if err != nil {
		t.Fatal(err)
	}
	sctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); dashboard.Serve(sctx, l, srv) }()
	t.Cleanup(func() { cancel(); <-done })
	base := "http://" + l.Addr().String()

	text := `document.getElementById("quota").textContent`
	if err := chromedp.Do(ctx,
		chromedp.Navigate(base+"/p/0/"),
		until(`!document.getElementById("quotaCard").hidden`),
		until(text+`.includes("USAGE_LIMITS five_hour:soft:85,seven_day:hard:75; ledger `+path+`")`),
		until(text+`.includes("15% of every window kept for you (the loops wait for the reset at 85%)")`),
		until(text+`.includes("claude-code five_hour 55% reported at ")`),
		until(text+`.includes("this machine: 2 calls, 20k tokens")`),
		until(text+`.includes("/home/me/<b id=bold>api</b> (pid 7) 2 calls, 20k tokens")`),
	); err != nil {
		t.Fatalf("the quota card: %v", err)
	}
	if bold, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.getElementById("bold") !== null`)); err != nil || bold {
		t.Fatalf("a folder's name was rendered as HTML (err %v)", err)
	}

	// Another loop's call reaches the page without a reload: the estimate.
	record(quota.Run{ID: "mine#8", PID: 8, Project: r.dir.Root()}, now, nil)
	if err := chromedp.Do(ctx,
		until(text+`.includes("claude-code five_hour 60% (estimated): 55% reported at ")`),
		until(text+`.includes("this machine: 3 calls, 30k tokens")`),
	); err != nil {
		t.Fatalf("the estimate after another loop's call: %v", err)
	}

	shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if err := os.WriteFile(filepath.Join(artifacts(t), "dashboard-quota.png"), shot, 0o644); err != nil {
		t.Fatal(err)
	}

	snap, err := chromedp.Run(ctx, chromedp.Evaluate[string](`fetch("/api/p/0/snapshot").then(r => r.text())`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	var page struct {
		Name  string          `json:"name"`
		State json.RawMessage `json:"state"`
		Calls json.RawMessage `json:"calls"`
		Quota struct {
			Ledger   string  `json:"ledger"`
			Reserve  float64 `json:"reserve_percent"`
			Accounts []struct {
				Account string          `json:"account"`
				Windows []quota.Reading `json:"windows"`
			} `json:"accounts"`
			Rows []struct{ Label, Text string } `json:"rows"`
		} `json:"quota"`
	}
	if err := json.Unmarshal([]byte(snap), &page); err != nil {
		t.Fatalf("snapshot %q: %v", snap, err)
	}
	q := page.Quota
	if page.Name != "webproj" || page.State == nil || page.Calls == nil || q.Ledger != path || q.Reserve != 15 || len(q.Accounts) != 1 ||
		len(q.Accounts[0].Windows) != 1 || *q.Accounts[0].Windows[0].Used != 60 || !q.Accounts[0].Windows[0].Estimated || len(q.Rows) < 3 {
		t.Errorf("snapshot: %s", snap)
	}
}
