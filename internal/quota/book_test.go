package quota

import (
	"encoding/json"
	"math"
	"testing"
	"time"
)

var t0 = time.Date(2026, 2, 18, 0, 0, 0, 0, time.UTC)

func pct(p float64) *float64 { return &p }

// runA and runB are two loops on the machine.
var (
	runA = Run{ID: RunKey("2026-02-18T00:00:00+00:00", 100), PID: 100, Project: "/home/me/a", Driver: "codex"}
	runB = Run{ID: RunKey("2026-02-18T00:00:00+00:00", 200), PID: 200, Project: "/home/me/b", Driver: "codex"}
)

// call is one call of run spending tokens that reported reports.
func call(run Run, tokens int64, reports ...Report) Entry {
	return Entry{Account: "codex", Run: run, Calls: 1, Tokens: tokens, Reports: reports, By: run.ID}
}

func reading(t *testing.T, b *Book, account, window string, now time.Time) Reading {
	t.Helper()
	for _, r := range b.Readings(account, now) {
		if r.Window == window {
			return r
		}
	}
	t.Fatalf("no reading of %s %s in %+v", account, window, b.Readings(account, now))
	return Reading{}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func used(r Reading) float64 {
	if r.Used == nil {
		return -1
	}
	return *r.Used
}

// A CLI that reports a figure with every call (Codex's snapshot): the
// figure is the use, not an estimate; the rise between figures teaches
// what a token and a call use; a call without a figure is then estimated
// from it; the next real figure corrects the estimate.
func TestEstimateCorrectedByRealFigure(t *testing.T) {
	b := &Book{}
	reset := t0.Add(5 * time.Hour)
	snap := func(p float64) Report {
		return Report{Window: "primary", Status: "allowed", Used: pct(p), ResetsAt: reset, Minutes: 300}
	}
	now := t0
	step := func(e Entry) { now = now.Add(10 * time.Minute); b.Add(now, e) }

	step(call(runA, 1000, snap(10)))
	r := reading(t, b, "codex", "primary", now)
	if used(r) != 10 || r.Estimated || r.CallsSince != 0 {
		t.Fatalf("after the first figure: %+v", r)
	}
	step(call(runB, 1000, snap(20))) // +10 % for 1000 tokens, 1 call
	w := b.Accounts["codex"].Windows["primary"]
	if !near(w.PerToken, 0.01) || !near(w.PerCall, 10) {
		t.Fatalf("learned %v per token, %v per call; want 0.01 and 10", w.PerToken, w.PerCall)
	}
	// A call that says nothing of the window (another run, a failed call):
	// estimated from what a token uses.
	step(call(runA, 1500))
	r = reading(t, b, "codex", "primary", now)
	if !near(used(r), 35) || !r.Estimated || r.CallsSince != 1 || r.TokensSince != 1500 || *r.Reported != 20 {
		t.Fatalf("estimate after a silent call = %v (estimated %v, %d calls, %d tokens since %v); want 35, estimated",
			used(r), r.Estimated, r.CallsSince, r.TokensSince, *r.Reported)
	}
	// The real figure corrects it: 30 %, not 35.
	step(call(runB, 500, snap(30)))
	r = reading(t, b, "codex", "primary", now)
	if used(r) != 30 || r.Estimated || r.CallsSince != 0 || r.ReportedBy != runB.ID {
		t.Fatalf("after the real figure: %+v", r)
	}
	// The lesson from 20 % to 30 % over 2000 tokens and 2 calls: 0.005
	// per token, blended half and half with the 0.01 learned before.
	if !near(w.PerToken, 0.0075) || !near(w.PerCall, 7.5) {
		t.Errorf("learned %v per token, %v per call; want 0.0075 and 7.5", w.PerToken, w.PerCall)
	}
	// The machine's spend in the window, by run, the most first.
	if r.Calls != 4 || r.Tokens != 4000 || len(r.Runs) != 2 || r.Runs[0].Run != runA.ID || r.Runs[0].Tokens != 2500 ||
		r.Runs[0].Project != "/home/me/a" || r.Runs[1].PID != 200 || r.Runs[1].Calls != 2 {
		t.Errorf("spend %d calls, %d tokens, runs %+v", r.Calls, r.Tokens, r.Runs)
	}
}

// Claude sends a figure only near the limit. Nothing is learned from the
// first one (what was spent before the ledger's calls is not known); the
// rise to the second over the tokens between teaches what a token uses;
// calls after it are estimated; after the reset, the calls since the
// reset are estimated with what was learned, and the next reset is
// guessed from the window's length.
func TestEstimateBetweenClaudeWarnings(t *testing.T) {
	b := &Book{}
	claude := func(run Run, tokens int64, reports ...Report) Entry {
		e := call(run, tokens, reports...)
		e.Account = "claude-code"
		return e
	}
	reset := t0.Add(5 * time.Hour)
	allowed := Report{Window: "five_hour", Status: "allowed", ResetsAt: reset}
	warning := func(p float64) Report {
		return Report{Window: "five_hour", Status: "allowed_warning", Used: pct(p), ResetsAt: reset}
	}
	now := t0
	step := func(e Entry) { now = now.Add(10 * time.Minute); b.Add(now, e) }
	for range 3 { // no figure yet: nothing known of the use, but the reset
		step(claude(runA, 1000, allowed))
	}
	r := reading(t, b, "claude-code", "five_hour", now)
	if r.Used != nil || r.ResetsAt == nil || !r.ResetsAt.Equal(reset) || r.Calls != 3 {
		t.Fatalf("before any figure: %+v", r)
	}
	step(claude(runB, 2000, warning(80)))
	w := b.Accounts["claude-code"].Windows["five_hour"]
	if w.PerToken != 0 || w.PerCall != 0 {
		t.Fatalf("learned %v, %v from one figure", w.PerToken, w.PerCall)
	}
	step(claude(runA, 1000))
	if r = reading(t, b, "claude-code", "five_hour", now); used(r) != 80 || r.Estimated || r.CallsSince != 1 {
		t.Fatalf("with nothing learned the figure stands, with the calls since: %+v", r)
	}
	step(claude(runA, 1000, warning(88))) // 8 % over 2000 tokens and 2 calls
	if !near(w.PerToken, 0.004) || !near(w.PerCall, 4) {
		t.Fatalf("learned %v per token, %v per call; want 0.004 and 4", w.PerToken, w.PerCall)
	}
	step(claude(runB, 1000, allowed))
	r = reading(t, b, "claude-code", "five_hour", now)
	if !near(used(r), 92) || !r.Estimated {
		t.Fatalf("after one more call: %v (estimated %v), want 92 estimated", used(r), r.Estimated)
	}
	// After the reset: nothing spent yet is 0 %, estimated; two calls of
	// 1000 tokens are 8 %; the reset ahead is guessed from the first.
	now = reset.Add(time.Minute)
	r = reading(t, b, "claude-code", "five_hour", now)
	if used(r) != 0 || !r.Estimated || r.Reported != nil || r.ResetsAt != nil {
		t.Fatalf("just after the reset: %+v", r)
	}
	b.Add(now.Add(time.Minute), claude(runA, 1000))
	b.Add(now.Add(2*time.Minute), claude(runB, 1000))
	r = reading(t, b, "claude-code", "five_hour", now.Add(3*time.Minute))
	guess := now.Add(time.Minute).Truncate(time.Minute).Add(5 * time.Hour)
	if !near(used(r), 8) || !r.Estimated || r.ResetsAt == nil || !r.ResetGuessed || !r.ResetsAt.Equal(guess) || r.Calls != 2 {
		t.Fatalf("after the reset: %+v (want 8 %%, reset guessed %s)", r, guess)
	}
	// A report of the new period without a figure voids the old figure.
	next := guess.Add(30 * time.Second)
	b.Add(now.Add(4*time.Minute), claude(runA, 1000, Report{Window: "five_hour", Status: "allowed", ResetsAt: next}))
	r = reading(t, b, "claude-code", "five_hour", now.Add(4*time.Minute))
	if !near(used(r), 12) || !r.Estimated || r.ResetGuessed || !r.ResetsAt.Equal(next) {
		t.Fatalf("after a report of the new period: %+v", r)
	}
}

// A rejected window without a percent is used up; a figure of unknown
// reset holds for the window's length (an hour when that is unknown too).
func TestRejectedAndStaleFigures(t *testing.T) {
	b := &Book{}
	b.Add(t0, call(runA, 10, Report{Window: "unknown", Status: "rejected"}))
	if r := reading(t, b, "codex", "unknown", t0); used(r) != 100 {
		t.Fatalf("rejected = %v", used(r))
	}
	if r := reading(t, b, "codex", "unknown", t0.Add(61*time.Minute)); r.Used != nil {
		t.Fatalf("an hour later, with no reset known: %+v", r)
	}
	b.Add(t0, call(runA, 10, Report{Window: "secondary", Used: pct(40), Minutes: 10080}))
	if r := reading(t, b, "codex", "secondary", t0.Add(6*24*time.Hour)); used(r) != 40 {
		t.Fatalf("within a week-long window: %+v", r)
	}
}

// The projection: the last hour's burn at what a token uses, and when the
// window is used up at that rate.
func TestProjection(t *testing.T) {
	b := &Book{}
	reset := t0.Add(5 * time.Hour)
	now := t0
	for i, p := range []float64{10, 20, 30} { // 10 % per 1000-token call, one every 10 minutes
		now = t0.Add(time.Duration(i*10) * time.Minute)
		b.Add(now, call(runA, 1000, Report{Window: "primary", Used: pct(p), ResetsAt: reset, Minutes: 300}))
	}
	r := reading(t, b, "codex", "primary", now)
	// 3000 tokens in the last hour at 0.01 % each: 30 % an hour; 70 % left.
	if !near(r.PerHour, 30) || r.FullAt == nil || !r.FullAt.Equal(now.Add(140*time.Minute)) {
		t.Fatalf("projection %v %%/h, used up at %v", r.PerHour, r.FullAt)
	}
	// Two hours of silence: nothing burns, nothing is projected.
	r = reading(t, b, "codex", "primary", now.Add(2*time.Hour))
	if r.PerHour != 0 || r.FullAt != nil {
		t.Fatalf("no burn: %+v", r)
	}
}

// The ledger stays bounded: ten days of a call every three minutes from two runs
// keep a little over a week, per minute for the last six hours and per
// hour before, within maxSpend; runs and accounts have caps too.
func TestBookBounded(t *testing.T) {
	b := &Book{}
	now := t0
	const calls = 10 * 24 * 20
	for i := range calls {
		now = t0.Add(time.Duration(i) * 3 * time.Minute)
		run := runA
		if i%2 == 1 {
			run = runB
		}
		b.Add(now, call(run, 100, Report{Window: "primary", Used: pct(float64(i % 100)), Minutes: 300}))
	}
	a := b.Accounts["codex"]
	if len(a.Spend) > maxSpend {
		t.Errorf("%d spend entries, over %d", len(a.Spend), maxSpend)
	}
	if oldest := a.Spend[0].At; now.Sub(oldest) > keepFor {
		t.Errorf("oldest spend %s, more than %s before %s", oldest, keepFor, now)
	}
	for _, s := range a.Spend {
		if now.Sub(s.At) > spendFine+time.Hour && !s.At.Equal(s.At.Truncate(time.Hour)) {
			t.Fatalf("old spend not per hour: %+v", s)
		}
	}
	if a.Calls != calls || a.Tokens != 100*calls {
		t.Errorf("counters %d calls, %d tokens", a.Calls, a.Tokens)
	}
	for i := range maxRuns + 10 {
		b.Add(now, call(Run{ID: RunKey("r", i), PID: i}, 1))
	}
	if len(b.Runs) != maxRuns {
		t.Errorf("%d runs kept, want %d", len(b.Runs), maxRuns)
	}
	for i := range maxAccounts + 3 {
		b.Add(now.Add(time.Duration(i)*time.Second), Entry{Account: "acct" + string(rune('a'+i)), Run: runA, Calls: 1})
	}
	if len(b.Accounts) != maxAccounts {
		t.Errorf("%d accounts kept, want %d", len(b.Accounts), maxAccounts)
	}
	data, err := json.Marshal(b)
	if err != nil || len(data) > 1<<20 {
		t.Errorf("the ledger is %d bytes (%v), over 1 MiB", len(data), err)
	}
}

// Claim: one of the loops tells of each projection of a period; a probe
// is claimed once per interval.
func TestClaims(t *testing.T) {
	b := &Book{}
	b.Add(t0, call(runA, 1, Report{Window: "primary", Used: pct(10)}))
	if !b.Claim("codex", "primary", "k") || b.Claim("codex", "primary", "k") || b.Claim("codex", "nope", "k") || b.Claim("x", "primary", "k") {
		t.Error("Claim: want the first claim of a key only, of a known window")
	}
	// A reset sent anew with each report moves by seconds, across a
	// minute: the same period; a reset an hour later is the next one.
	if !b.Claim("codex", "primary", "100:soft:85") || b.Claim("codex", "primary", "101:soft:85") ||
		!b.Claim("codex", "primary", "101:hard:90") || !b.Claim("codex", "primary", "160:soft:85") || !b.Claim("codex", "primary", "?:soft:85") {
		t.Error("Claim: want one claim per rule and period, resets within a few minutes being one period")
	}
	if !b.ClaimProbe("codex", t0, time.Minute) || b.ClaimProbe("codex", t0.Add(30*time.Second), time.Minute) ||
		!b.ClaimProbe("codex", t0.Add(61*time.Second), time.Minute) {
		t.Error("ClaimProbe: want one probe a minute")
	}
}

// A period that began at the last reset: a window whose next reset is
// closer than its length (a fixed weekly day, a provider that moved it)
// counts the spend since the last reset, not since its length before the
// next one.
func TestPeriodBeganAtTheLastReset(t *testing.T) {
	b := &Book{}
	r1, r2 := t0.Add(time.Hour), t0.Add(2*time.Hour)
	b.Add(t0, call(runA, 1000, Report{Window: "five_hour", Used: pct(10), ResetsAt: r1}))
	for i := range 9 {
		b.Add(t0.Add(time.Duration(i+1)*time.Minute), call(runA, 1000, Report{Window: "five_hour", Used: pct(float64(20 + 10*i)), ResetsAt: r1}))
	}
	after := r1.Add(time.Minute)
	b.Add(after, call(runB, 1000, Report{Window: "five_hour", Status: "allowed", ResetsAt: r2}))
	b.Add(after.Add(time.Minute), call(runB, 1000, Report{Window: "five_hour", Status: "allowed", ResetsAt: r2}))
	r := reading(t, b, "codex", "five_hour", after.Add(2*time.Minute))
	if r.Calls != 2 || r.CallsSince != 2 || !near(used(r), 20) || !r.Estimated || len(r.Runs) != 1 || r.Runs[0].Run != runB.ID {
		t.Fatalf("the period since the last reset: %+v", r)
	}
}
