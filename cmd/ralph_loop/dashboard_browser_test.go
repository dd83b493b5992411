package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/ralphloop/ralph_loop/internal/config"
	"github.com/ralphloop/ralph_loop/internal/dashboard"
	"github.com/ralphloop/ralph_loop/internal/events"
	"github.com/ralphloop/ralph_loop/internal/ralphdir"
)

const browserToken = "browser-test-token-0123456789"

// chromium finds the headless browser: skipped when there is none, except
// in CI, where a missing browser is a failure (.ci/run installs it).
// inCI reports whether the tests run in CI (CI set, and not false or 0),
// where a missing tool fails the tests that need it instead of skipping them.
func inCI() bool {
	ci := os.Getenv("CI")
	return ci != "" && ci != "false" && ci != "0"
}

func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if inCI() {
		t.Fatal("no chromium on PATH: the browser tests need it in CI (apt-get install chromium)")
	}
	t.Skip("no chromium on PATH (apt-get install chromium); the browser tests are skipped")
	return ""
}

// scriptedRun is a project whose .ralph/ the test writes as a running loop
// would: the lock held, status.json, the event log, live.log and the plan.
type scriptedRun struct {
	t   *testing.T
	dir *ralphdir.Dir
}

func newScriptedRun(t *testing.T) *scriptedRun {
	root := filepath.Join(t.TempDir(), "webproj")
	d := ralphdir.New(filepath.Join(root, ".ralph"), nil)
	if err := d.EnsureLayout(); err != nil {
		t.Fatal(err)
	}
	lock, err := d.Lock()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lock.Unlock() })
	r := &scriptedRun{t: t, dir: d}
	r.write(ralphdir.FixPlan, "# Plan\n- [x] Write the greeter\n- [ ] Add a name argument\n")
	r.write(ralphdir.Status, `{"loop_count":1,"status":"running","last_action":"executing","max_calls_per_hour":100,"tasks_completed":1,"tasks_total":2}`)
	r.write(ralphdir.CircuitBreakerState, `{"state":"CLOSED","consecutive_no_progress":0,"total_opens":0}`)
	// Text from the agent that must stay text.
	r.write(ralphdir.LiveLog, "=== Loop #1 ===\n<img src=x id=injected> agent: reading the plan\n")
	start := time.Now().Add(-time.Minute)
	r.event(events.Event{TS: start, Type: events.RunStarted, Driver: "claude-code"})
	r.event(events.Event{TS: start, Type: events.IterationStarted, Snapshot: events.Snapshot{Loop: 1}})
	r.iteration(1, 3, start.Add(20*time.Second))
	until := time.Now().Add(time.Hour)
	r.event(events.Event{Type: events.DelayStarted, Wait: "loop_delay", DelaySecs: 3600, Until: &until, Snapshot: events.Snapshot{Loop: 1}})
	return r
}

func (r *scriptedRun) write(name, data string) {
	r.t.Helper()
	if err := os.WriteFile(r.dir.Path(name), []byte(data), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

func (r *scriptedRun) appendTo(name, data string) {
	r.t.Helper()
	f, err := os.OpenFile(r.dir.Path(name), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		r.t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(data); err != nil {
		r.t.Fatal(err)
	}
}

func (r *scriptedRun) event(e events.Event) {
	r.t.Helper()
	e.V, e.RunID = events.SchemaVersion, "run-1"
	if e.TS.IsZero() {
		e.TS = time.Now()
	}
	b, err := json.Marshal(e)
	if err != nil {
		r.t.Fatal(err)
	}
	r.appendTo(ralphdir.EventsLog, string(b)+"\n")
}

func (r *scriptedRun) iteration(loop, files int, at time.Time) {
	r.event(events.Event{TS: at, Type: events.IterationCompleted, Snapshot: events.Snapshot{Loop: loop},
		Iteration: &events.Iteration{Outcome: "success", WallMS: 20000, FilesChanged: files,
			Usage: &events.Usage{InputTokens: 1000, OutputTokens: 234, CostUSD: 0.0125}}})
}

// serveScripted serves the project as --serve does, on 127.0.0.1, with its
// controls on.
func serveScripted(t *testing.T, r *scriptedRun) string {
	cfg := &config.Config{MaxCallsPerHour: 100, ServeControl: true, ServeToken: browserToken}
	srv := dashboard.New([]dashboard.Project{serveProject("webproj", r.dir, cfg)},
		dashboard.Options{Token: browserToken, Controls: true, Poll: 50 * time.Millisecond})
	l, err := dashboard.Listen("127.0.0.1:0", browserToken, "--dashboard")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		dashboard.Serve(ctx, l, srv)
	}()
	t.Cleanup(func() { cancel(); <-done })
	return "http://" + l.Addr().String()
}

// theBrowser is the one headless Chromium of a test binary's run: a test
// that needs a browser gets a tab in a browser context of its own (no
// cookies or storage shared with another test), instead of starting
// Chromium again (a start costs more CPU than a test's whole page work).
// closeBrowser, after the tests, stops it.
var theBrowser struct {
	once   sync.Once
	ctx    context.Context
	cancel context.CancelFunc
	err    error
}

// browser is a new tab of the shared browser, closed when t ends, with 90 s
// for everything the test does in it.
func browser(t *testing.T) context.Context {
	t.Helper()
	exe := chromium(t)
	theBrowser.once.Do(func() {
		opts := append(chromedp.DefaultExecAllocatorOptions[:],
			chromedp.ExecPath(exe), chromedp.NoSandbox, chromedp.WindowSize(1280, 800))
		actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
		bctx, cancelB := chromedp.NewContext(actx)
		theBrowser.ctx, theBrowser.cancel = bctx, func() { cancelB(); cancelA() }
		// The first Do starts the browser and binds its life to bctx, which
		// no test's timeout ends.
		theBrowser.err = chromedp.Do(bctx)
	})
	if theBrowser.err != nil {
		t.Fatalf("start %s: %v", exe, theBrowser.err)
	}
	ctx, cancelTab := chromedp.NewContext(theBrowser.ctx, chromedp.WithNewBrowserContext())
	ctx, cancelT := context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(func() { cancelT(); cancelTab() })
	return ctx
}

// closeBrowser stops the shared browser, if a test started it.
func closeBrowser() {
	if theBrowser.cancel != nil {
		theBrowser.cancel()
	}
}

// until waits, in the page, for a JavaScript condition to hold.
func until(cond string) chromedp.Action[chromedp.Void] {
	poll := chromedp.Poll[bool](cond, chromedp.WithPollingTimeout(20*time.Second), chromedp.WithPollingInterval(50*time.Millisecond))
	return func(ctx context.Context, tgt *chromedp.Target) (chromedp.Void, error) {
		_, err := poll(ctx, tgt)
		return chromedp.Void{}, err
	}
}

func artifacts(t *testing.T) string {
	if d := os.Getenv("RALPH_ARTIFACTS"); d != "" {
		if err := os.MkdirAll(d, 0o755); err == nil {
			return d
		}
	}
	return t.TempDir()
}

func TestDashboardInBrowser(t *testing.T) {
	t.Parallel() // a tab of the shared browser: the other tests run meanwhile
	ctx := browser(t)
	r := newScriptedRun(t)
	base := serveScripted(t, r)
	text := func(sel string) string { return `document.querySelector(` + jsString(sel) + `).textContent` }

	// The page shows the state and what it waits for, with the countdown.
	if err := chromedp.Do(ctx,
		chromedp.Navigate(base+"/"),
		until(text("#phase")+` === "waiting"`),
		until(text("#stateText")+`.includes("loop delay")`),
		until(`/^00:5\d:\d\d$/.test(`+text("#countdown")+`)`),
		until(text("#timeline tbody")+`.includes("success")`),
		until(text("#plan")+`.includes("Add a name argument")`),
		until(`document.querySelectorAll("#plan li.done").length === 1`),
		until(text("#breaker")+`.includes("CLOSED")`),
		until(text("#live")+`.includes("<img src=x id=injected>")`),
		chromedp.Evaluate[chromedp.Void](`window.sameDocument = true`),
	); err != nil {
		t.Fatalf("first view: %v", err)
	}
	injected, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.getElementById("injected") !== null`))
	if err != nil || injected {
		t.Fatalf("the agent's output was rendered as HTML (err %v)", err)
	}

	// A new iteration and new live output appear without a reload.
	r.event(events.Event{Type: events.IterationStarted, Snapshot: events.Snapshot{Loop: 2}})
	r.iteration(2, 7, time.Now())
	r.appendTo(ralphdir.LiveLog, "agent: second call, editing greet.sh\n")
	if err := chromedp.Do(ctx,
		until(`document.querySelectorAll("#timeline tbody tr").length === 2`),
		until(text("#timeline tbody tr:first-child")+`.startsWith("2success")`),
		until(text("#timeline tbody tr:first-child")+`.includes("7")`),
		until(text("#live")+`.includes("second call, editing greet.sh")`),
		until(`window.sameDocument === true`),
	); err != nil {
		t.Fatalf("live update: %v", err)
	}

	// Times are on one 24-hour clock whatever the browser's locale, scroll
	// bars are dark, and an agent's raw JSON records show as its text.
	r.appendTo(ralphdir.LiveLog, `{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Streaming the third step"}}}`+"\n")
	if err := chromedp.Do(ctx,
		until(`document.querySelectorAll("#events time").length > 0 && [...document.querySelectorAll("#events time")].every(e => /^\d\d:\d\d:\d\d$/.test(e.textContent))`),
		until(`/\d{4}-\d\d-\d\d \d\d:\d\d:\d\d/.test(`+text("#run")+`)`),
		until(`getComputedStyle(document.documentElement).colorScheme === "dark"`),
		until(text("#live")+`.includes("Streaming the third step") && !`+text("#live")+`.includes('{"type"')`),
	); err != nil {
		t.Fatalf("clock, scroll bars, live text: %v", err)
	}

	// A control without the token is refused, and changes nothing.
	if err := chromedp.Do(ctx,
		until(`!document.getElementById("controls").hidden`),
		chromedp.Click(chromedp.CSS(`button[data-action="pause"]`)),
		until(text("#controlMsg")+`.includes("pause refused")`),
	); err != nil {
		t.Fatalf("pause without the token: %v", err)
	}
	if r.dir.Exists(ralphdir.PauseFile) {
		t.Fatal("pause without the token paused the loop")
	}

	// With the token link, the same button pauses the loop as --pause does.
	if err := chromedp.Do(ctx,
		chromedp.Navigate(base+"/?token="+browserToken),
		until(`location.pathname === "/p/0/" && location.search === ""`),
		until(`!document.getElementById("controls").hidden`),
		chromedp.Click(chromedp.CSS(`button[data-action="pause"]`)),
		until(text("#controlMsg")+` === "pause: done"`),
		until(text("#phase")+` === "paused"`),
	); err != nil {
		t.Fatalf("pause with the token: %v", err)
	}
	if !r.dir.Exists(ralphdir.PauseFile) {
		t.Fatal("pause with the token left no pause file")
	}

	shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(390, 844), until(`document.documentElement.scrollWidth <= 390`)); err != nil {
		t.Fatalf("phone width (no horizontal scroll): %v", err)
	}
	phone, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("phone screenshot: %v", err)
	}
	dir := artifacts(t)
	for name, b := range map[string][]byte{"dashboard-1280.png": shot, "dashboard-phone.png": phone} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("screenshots in %s", dir)
}

func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func TestFindProjects(t *testing.T) {
	root := t.TempDir()
	for _, p := range []string{"one/.ralph", ".swarm/wt-a/.ralph", ".swarm/wt-b/.ralph", ".swarm/notes", "empty"} {
		if err := os.MkdirAll(filepath.Join(root, p), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	got, err := findProjects([]string{"one", ".swarm"}, root, ".ralph")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range got {
		names = append(names, p.name)
	}
	if strings.Join(names, ",") != "one,.swarm/wt-a,.swarm/wt-b" {
		t.Errorf("projects: %v", names)
	}
	if _, err := findProjects([]string{"empty"}, root, ".ralph"); err == nil || !strings.Contains(err.Error(), "no .ralph") {
		t.Errorf("a folder without projects: %v", err)
	}
}
