//go:build unix

package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/ralphloop/ralph_loop/internal/fakeagent"
)

// These tests run the real program: a loop (or a swarm) that ended, then
// `ralph_loop --serve` on 127.0.0.1, its page read in headless Chromium
// (issue 41: what the dashboard hid from a new user).

// serveReal starts `ralph_loop --serve ADDR args...` in p and returns the
// address once it answers; it is stopped when the test ends.
func serveReal(t *testing.T, p *loopProject, args ...string) string {
	t.Helper()
	addr := freeAddr(t)
	var out bytes.Buffer
	cmd := p.command(t, nil, append([]string{"--serve", addr}, args...)...)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
	})
	if !waitFor(20*time.Second, func() bool { return snapshotOf(addr) != nil }) {
		t.Fatalf("--serve never answered on %s:\n%s", addr, out.String())
	}
	return "http://" + addr
}

// runReal runs ralph_loop in p to its end and returns its exit code and
// output.
func runReal(t *testing.T, p *loopProject, env []string, args ...string) (int, string) {
	t.Helper()
	var out bytes.Buffer
	cmd := p.command(t, env, args...)
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return commandExitCode(err), out.String()
}

func gitIn(t *testing.T, p *loopProject, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Env = p.dir, p.env(nil)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// TestDashboardSwarmWorkerNotMerged: a swarm whose worker-2 is held back
// by red gates. Its row in the overview and its page say it was not merged
// (why, and the branch that keeps its work), and its cost is every run's
// (the first and the two hand-backs: three calls), not the last call's.
func TestDashboardSwarmWorkerNotMerged(t *testing.T) {
	t.Parallel()
	p := newLoopProject(t, 0, fakeagent.Script{Default: fakeagent.Reply{
		Out:   fakeagent.ClaudeJSON("Did one task.\n"+fakeagent.StatusBlock("IN_PROGRESS", false, 1), "sess-{{CALL}}") + "\n",
		Check: true, Touch: []string{"out-{{DIR}}.txt"},
	}})
	mustWrite(t, p.path(".ralph/@fix_plan.md"), "# Fix Plan\n\n## Epic A\n- [ ] a1\n\n## Epic B\n- [ ] b1\n")
	mustWrite(t, p.path(".ralph/.ralphrc"), "TEST_COMMAND=\"test ! -e out-worker-2.txt\"\n")
	mustWrite(t, p.path(".gitignore"), ".swarm/\n")
	gitIn(t, p, "add", "-A")
	gitIn(t, p, "commit", "-q", "-m", "epics")
	if code, out := runReal(t, p, []string{"RALPH_SWARM_STAGGER=0"}, "--swarm", "2"); code != ExitHeldBack {
		t.Fatalf("--swarm exit %d, want %d (worker-2 held):\n%s", code, ExitHeldBack, out)
	}
	base := serveReal(t, p, "--projects", ".", ".swarm")
	ctx := browser(t)
	text := func(sel string) string { return `document.querySelector(` + jsString(sel) + `).textContent` }
	row := `[...document.querySelectorAll("#rows tbody tr")].find(r => r.textContent.includes("worker-2"))`
	oneCall := "$0.0123" // the fake claude's price of a call
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/"), until(row+` !== undefined`)); err != nil {
		t.Fatalf("the overview has no worker-2 row: %v", err)
	}
	// Each item is checked on its own, so that a page without one of them
	// names each that is missing.
	check := func(what string, conds ...string) {
		t.Helper()
		for _, c := range conds {
			if err := chromedp.Do(ctx, shortly(c)); err != nil {
				t.Errorf("%s: %v (waiting for %s)", what, err, c)
				return
			}
		}
	}
	check("the overview row says worker-2 was not merged", row+`.querySelector(".badge.notmerged") !== null`)
	check("the overview row's cost is its three calls'", row+`.textContent.includes("$0.0369")`)
	href, err := chromedp.Run(ctx, chromedp.Evaluate[string](row+`.querySelector("a").getAttribute("href")`))
	if err != nil || href != "/p/1/" {
		t.Fatalf("worker-2's link: %q %v", href, err)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(base+href), until(text("#phase")+` === "stopped"`)); err != nil {
		t.Fatalf("worker-2's page: %v", err)
	}
	check("the page says worker-2 was not merged, why, and where its work is",
		text("#swarm")+`.includes("not merged")`,
		text("#swarm")+`.includes("its work is not in main; it stays on branch swarm/worker-2")`,
		text("#swarm")+`.includes("the quality gates fail on the merged result")`)
	check("the page's cost of the worker is its three calls'", text("#calls")+`.includes("3 calls")`, text("#calls")+`.includes("$0.0369")`)
	check("the last run's cost is labelled as the run's", text("#calls")+`.includes("Cost this run")`)
	calls, err := chromedp.Run(ctx, chromedp.Evaluate[string](text("#calls")))
	if err != nil || !strings.Contains(calls, oneCall) {
		t.Errorf("the last run's cost (%s, labelled as the run's) is gone: %q %v", oneCall, calls, err)
	}
	saveShot(t, ctx, "dashboard-swarm-worker.png")
}

// TestDashboardSaysWhyAndWhen: a run whose call failed with a line on
// stderr, after an earlier run, with a task ticked by hand since. The
// page shows the stderr line the console showed (made safe), sets the
// earlier run's events apart, counts the plan as it strikes it, writes
// every time one way, says whose tokens and cost it shows, and says why
// the live output is empty.
func TestDashboardSaysWhyAndWhen(t *testing.T) {
	t.Parallel()
	ok := tickScript().Default
	p := newLoopProject(t, 3, fakeagent.Script{Default: ok, Calls: map[int]fakeagent.Reply{
		2: {Err: "fatal: quota \x1b[31mexceeded\x1b[0m for this key\n", RC: 1},
	}})
	if code, out := runReal(t, p, []string{"MAX_LOOPS=1"}); code != 4 {
		t.Fatalf("first run: exit %d, want 4 (max loops):\n%s", code, out)
	}
	code, out := runReal(t, p, []string{"MAX_LOOPS=1"})
	if !strings.Contains(out, `stderr (last 3 lines): fatal: quota \u001b[31mexceeded\u001b[0m for this key`) {
		t.Fatalf("second run (exit %d): the console did not show the stderr line:\n%s", code, out)
	}
	// The person ticks a task by hand after the run.
	plan, _ := os.ReadFile(p.path(".ralph/@fix_plan.md"))
	mustWrite(t, p.path(".ralph/@fix_plan.md"), strings.Replace(string(plan), "- [ ] Task 2", "- [x] Task 2", 1))

	base := serveReal(t, p)
	ctx := browser(t)
	text := func(sel string) string { return `document.querySelector(` + jsString(sel) + `).textContent` }
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/"), until(text("#phase")+` === "stopped"`)); err != nil {
		t.Fatalf("the page: %v", err)
	}
	checks := []struct{ what, cond string }{
		{"the failed loop's stderr line, made safe", text("#events") + `.includes("Loop #1 failed: error (code 1); stderr: fatal: quota \\u001b[31mexceeded\\u001b[0m for this key")`},
		{"the earlier run's events set apart", `[...document.querySelectorAll("#events li.runhead")].some(l => l.textContent.startsWith("another run"))
			&& document.querySelectorAll("#events li.other").length > 0 && ` + text("#eventsNote") + ` !== ""`},
		{"PLAN (n/m) counts the struck tasks", text("#planCount") + ` === "(" + document.querySelectorAll("#plan li.done").length + "/" + document.querySelectorAll("#plan li").length + ")"
			&& document.querySelectorAll("#plan li.done").length === 2`},
		{"one time format (no RFC 3339 time on the page)", `!/\d{4}-\d\d-\d\dT\d\d:\d\d/.test(document.body.innerText)`},
		{"tokens and cost labelled per run and per call", text("#calls") + `.includes("Tokens this run") && ` + text("#calls") + `.includes("Cost this run")
			&& ` + text("#timeline thead") + `.includes("Tokens (call)") && ` + text("#timeline thead") + `.includes("Cost (call)")`},
		{"the empty live output says why", text("#liveNote") + `.includes("without --live")`},
	}
	for _, c := range checks {
		if err := chromedp.Do(ctx, shortly(c.cond)); err != nil {
			t.Errorf("%s: %v", c.what, err)
		}
	}
	if t.Failed() {
		t.Logf("the page's last events:\n%s", eventsText(ctx))
	}
	saveShot(t, ctx, "dashboard-failed-loop.png")
}

// shortly waits up to 5 s for a condition of a page that shows its data
// already (the server puts it in the page): each item of a check fails
// on its own, within the browser's time.
func shortly(cond string) chromedp.Action[chromedp.Void] {
	poll := chromedp.Poll[bool](cond, chromedp.WithPollingTimeout(5*time.Second), chromedp.WithPollingInterval(50*time.Millisecond))
	return func(ctx context.Context, tgt *chromedp.Target) (chromedp.Void, error) {
		_, err := poll(ctx, tgt)
		return chromedp.Void{}, err
	}
}

// eventsText is the page's last events, for a failure's message.
func eventsText(ctx context.Context) string {
	s, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("events").innerText`))
	return s
}

// saveShot keeps a screenshot of the page (in RALPH_ARTIFACTS, when set)
// for a person to look at.
func saveShot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Errorf("screenshot: %v", err)
		return
	}
	p := filepath.Join(artifacts(t), name)
	if err := os.WriteFile(p, shot, 0o644); err != nil {
		t.Error(err)
	}
	t.Logf("screenshot: %s", p)
}
