package quota

import (
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Version is the ledger's format; a ledger of a later one is left alone.
const Version = 1

// Book is the ledger's content: what every loop on the machine spent of
// each account's usage windows, and what the agent CLIs (or the person's
// probe) last said of them. It is plain data: the ledger package reads
// and writes it under a lock, and the methods here change it.
type Book struct {
	Version  int                 `json:"version"`
	Accounts map[string]*Account `json:"accounts,omitempty"`
	Runs     []Run               `json:"runs,omitempty"`
}

// Account is one provider account: a driver, and the configuration folder
// its CLI logs in from when the person names one (CLAUDE_CONFIG_DIR,
// CODEX_HOME).
type Account struct {
	Since   time.Time          `json:"since"`  // when the ledger began counting its calls
	Calls   int64              `json:"calls"`  // every call counted since, all runs together
	Tokens  int64              `json:"tokens"` // and their tokens
	Spend   []Spend            `json:"spend,omitempty"`
	Windows map[string]*Window `json:"windows,omitempty"`
	Probed  time.Time          `json:"probed,omitzero"` // the last USAGE_PROBE_COMMAND run for it
}

// Spend is what one run spent in one minute (an hour, once older than
// spendFine), oldest first.
type Spend struct {
	At     time.Time `json:"at"` // the minute's (or hour's) start
	Run    string    `json:"run"`
	Calls  int64     `json:"calls"`
	Tokens int64     `json:"tokens"`
}

// Window is what is known of one usage window of an account.
type Window struct {
	Status   string     `json:"status,omitempty"`         // the last status reported
	Seen     time.Time  `json:"seen"`                     // the last report of any kind
	ResetsAt *time.Time `json:"resets_at,omitempty"`      // the last reset time reported
	Began    *time.Time `json:"began,omitempty"`          // when the period of ResetsAt began, when known (the reset before it)
	Minutes  int        `json:"window_minutes,omitempty"` // the window's length, when reported
	// Figure is the last used percent reported (a CLI's own figure, or
	// the probe's).
	Figure *Figure `json:"figure,omitempty"`
	// What one token (one call) uses of the window, in percent, learned
	// from the figures and the calls between them; 0 until learned.
	PerToken float64 `json:"percent_per_token,omitempty"`
	PerCall  float64 `json:"percent_per_call,omitempty"`
	// Anchor is the figure the next lesson is measured from.
	Anchor *Figure `json:"anchor,omitempty"`
	// Told are the projections already notified ("<reset>:<rule>"), so
	// that of all the loops on the machine one tells of each.
	Told []string `json:"told,omitempty"`
}

// Figure is one reported used percent and the account's counters when it
// came (the call that reported it included).
type Figure struct {
	Used     float64    `json:"used_percent"`
	At       time.Time  `json:"at"`
	By       string     `json:"by,omitempty"` // the run that reported it, or "probe"
	ResetsAt *time.Time `json:"resets_at,omitempty"`
	Calls    int64      `json:"calls"`
	Tokens   int64      `json:"tokens"`
}

// Run is one ralph_loop run that spent from the ledger.
type Run struct {
	ID      string    `json:"id"` // the run's id and pid: RunKey
	PID     int       `json:"pid"`
	Project string    `json:"project"`
	Driver  string    `json:"driver"`
	Account string    `json:"account"`
	Started time.Time `json:"started"`
	Last    time.Time `json:"last"` // its last call
	Calls   int64     `json:"calls"`
	Tokens  int64     `json:"tokens"`
}

// RunKey is a run's key in the ledger: its id (the start time, which two
// runs may share) and its pid.
func RunKey(id string, pid int) string { return id + "#" + strconv.Itoa(pid) }

// Report is what a CLI (or the probe) said of one window.
type Report struct {
	Window   string
	Status   string    // allowed, allowed_warning, rejected; "" from the probe
	Used     *float64  // 0..100, nil when not said
	ResetsAt time.Time // zero when not said
	Minutes  int       // 0 when not said
}

// Entry is what one run adds to the ledger at once: a call (Calls 1) with
// its tokens and the windows it reported, or a probe's reports (Calls 0).
type Entry struct {
	Account string
	Run     Run // ID, PID, Project, Driver, Started
	Calls   int64
	Tokens  int64
	Reports []Report
	By      string // who reported: the run's key, or "probe"
}

// Bounds of the ledger: it holds at most a little over a week of spend
// (the longest window), per minute for the last hours and per hour before.
const (
	keepFor     = 8 * 24 * time.Hour
	spendFine   = 6 * time.Hour
	maxSpend    = 4096
	maxRuns     = 128
	maxAccounts = 16
	maxWindows  = 16
	maxTold     = 16
)

// Add records e at now: the account's counters and the run's spend first,
// then the reports (a figure includes the call that reported it), then
// the ledger is bounded again.
func (b *Book) Add(now time.Time, e Entry) {
	now = now.UTC()
	if b.Version == 0 {
		b.Version = Version
	}
	a := b.account(e.Account, now)
	a.Calls += e.Calls
	a.Tokens += max(e.Tokens, 0)
	if e.Calls > 0 || e.Tokens > 0 {
		a.spend(now, e.Run.ID, e.Calls, max(e.Tokens, 0))
		b.ran(now, e)
	}
	for _, r := range e.Reports {
		a.report(now, r, e.By)
	}
	b.Prune(now)
}

func (b *Book) account(name string, now time.Time) *Account {
	if b.Accounts == nil {
		b.Accounts = map[string]*Account{}
	}
	a := b.Accounts[name]
	if a == nil {
		a = &Account{Since: now}
		b.Accounts[name] = a
	}
	return a
}

// ran counts e's call for its run.
func (b *Book) ran(now time.Time, e Entry) {
	i := slices.IndexFunc(b.Runs, func(r Run) bool { return r.ID == e.Run.ID })
	if i < 0 {
		r := e.Run
		r.Account, r.Calls, r.Tokens = e.Account, 0, 0
		if r.Started.IsZero() {
			r.Started = now
		}
		b.Runs = append(b.Runs, r)
		i = len(b.Runs) - 1
	}
	r := &b.Runs[i]
	r.Last, r.Calls, r.Tokens = now, r.Calls+e.Calls, r.Tokens+max(e.Tokens, 0)
	r.Driver, r.Account = e.Run.Driver, e.Account
}

// spend adds to run's spend of the minute of now.
func (a *Account) spend(now time.Time, run string, calls, tokens int64) {
	at := now.Truncate(time.Minute)
	for i := len(a.Spend) - 1; i >= 0 && !a.Spend[i].At.Before(at); i-- {
		if s := &a.Spend[i]; s.At.Equal(at) && s.Run == run {
			s.Calls, s.Tokens = s.Calls+calls, s.Tokens+tokens
			return
		}
	}
	a.Spend = append(a.Spend, Spend{At: at, Run: run, Calls: calls, Tokens: tokens})
	// A clock that went back leaves the list out of order: keep it sorted.
	if n := len(a.Spend); n > 1 && a.Spend[n-1].At.Before(a.Spend[n-2].At) {
		slices.SortStableFunc(a.Spend, func(x, y Spend) int { return x.At.Compare(y.At) })
	}
}

// report takes in what was said of one window at now.
func (a *Account) report(now time.Time, r Report, by string) {
	if r.Window == "" {
		r.Window = "unknown"
	}
	if a.Windows == nil {
		a.Windows = map[string]*Window{}
	}
	w := a.Windows[r.Window]
	if w == nil {
		w = &Window{}
		a.Windows[r.Window] = w
	}
	w.Seen = now
	if r.Status != "" {
		w.Status = r.Status
	}
	if r.Minutes > 0 {
		w.Minutes = r.Minutes
	}
	var reset *time.Time
	if !r.ResetsAt.IsZero() {
		t := r.ResetsAt.UTC()
		reset = &t
		if w.ResetsAt != nil && !samePeriod(w.ResetsAt, reset) {
			// A new period: it began at the last one's reset (now, when
			// the provider moved a reset that had not come yet).
			began := *w.ResetsAt
			if began.After(now) {
				began = now
			}
			w.Began = &began
		}
		w.ResetsAt = &t
	}
	used := r.Used
	if used == nil && r.Status == "rejected" {
		used = new(100.0) // at the limit: all of it is used
	}
	if used == nil {
		if reset != nil && w.Figure != nil && !samePeriod(w.Figure.ResetsAt, reset) {
			w.Figure = nil // a report of the next period: the figure is of the last
		}
		return
	}
	f := Figure{Used: clamp(*used), At: now, By: by, ResetsAt: reset, Calls: a.Calls, Tokens: a.Tokens}
	if reset == nil && w.Figure != nil && w.Figure.ResetsAt != nil && now.Before(*w.Figure.ResetsAt) {
		f.ResetsAt = w.Figure.ResetsAt // the same period, its reset not said again
	}
	a.learn(w, f, r.Window)
	w.Figure = &f
}

// learn updates what a token and a call use of window w from figure f:
// the rise since the anchor (the figure the lesson started from, in the
// same period), once it is at least a whole percent, over the tokens and
// calls counted since; half the old value and half the new. What the
// person spends meanwhile (interactive sessions the ledger never sees) is
// in the rise too: the lesson counts it as the loops' own, which errs on
// the side of pausing early. Nothing is learned from one figure alone:
// the use before the ledger's first call in the period is not known.
func (a *Account) learn(w *Window, f Figure, name string) {
	an := w.Anchor
	if length := windowLength(w, name); an == nil || !samePeriod(an.ResetsAt, f.ResetsAt) || length > 0 && f.At.Sub(an.At) > length {
		w.Anchor = &f // a new period: the next lesson starts here
		return
	}
	rise := f.Used - an.Used
	switch {
	case rise < 0:
		w.Anchor = &f // the provider's count went down: start again
	case rise >= 1:
		if d := f.Tokens - an.Tokens; d > 0 {
			w.PerToken = blend(w.PerToken, rise/float64(d))
		}
		if d := f.Calls - an.Calls; d > 0 {
			w.PerCall = blend(w.PerCall, rise/float64(d))
		}
		w.Anchor = &f
	}
}

func blend(old, lesson float64) float64 {
	if old <= 0 {
		return lesson
	}
	return (old + lesson) / 2
}

// samePeriod: two reset times are of one period of a window when both
// are known and within periodSlack (a reset computed from "resets in N
// seconds" moves a little from one report to the next), or either is not
// known.
func samePeriod(a, b *time.Time) bool {
	if a == nil || b == nil {
		return true
	}
	d := a.Sub(*b)
	return d < periodSlack && d > -periodSlack
}

const periodSlack = 10 * time.Minute

// spentSince is the calls and tokens counted from t on (whole spend
// entries: one that starts before t is left out).
func (a *Account) spentSince(t time.Time) (calls, tokens int64) {
	for i := len(a.Spend) - 1; i >= 0 && !a.Spend[i].At.Before(t.Truncate(time.Minute)); i-- {
		calls, tokens = calls+a.Spend[i].Calls, tokens+a.Spend[i].Tokens
	}
	return calls, tokens
}

// Claim marks a projection of window as told (key: its period and rule)
// and reports whether it was not yet: one loop of all tells of it.
func (b *Book) Claim(account, window, key string) bool {
	a := b.Accounts[account]
	if a == nil || a.Windows[window] == nil {
		return false
	}
	w := a.Windows[window]
	if slices.ContainsFunc(w.Told, func(k string) bool { return sameClaim(k, key) }) {
		return false
	}
	w.Told = append(w.Told, key)
	if len(w.Told) > maxTold {
		w.Told = w.Told[len(w.Told)-maxTold:]
	}
	return true
}

// sameClaim: two claim keys ("<reset in minutes>:<kind>:<percent>",
// Crossing.Key) are of one threshold and period when their rules are the
// same and their resets within periodSlack: a reset computed from "resets
// in N seconds", or sent anew with each call, moves by seconds, and may
// cross a minute.
func sameClaim(a, b string) bool {
	resetA, ruleA, _ := strings.Cut(a, ":")
	resetB, ruleB, _ := strings.Cut(b, ":")
	if ruleA != ruleB {
		return false
	}
	if resetA == resetB {
		return true
	}
	ma, errA := strconv.ParseInt(resetA, 10, 64)
	mb, errB := strconv.ParseInt(resetB, 10, 64)
	return errA == nil && errB == nil && time.Duration(max(ma-mb, mb-ma))*time.Minute < periodSlack
}

// ClaimProbe marks account as probed at now unless it was within every,
// and reports whether the caller is the one to probe.
func (b *Book) ClaimProbe(account string, now time.Time, every time.Duration) bool {
	a := b.account(account, now.UTC())
	if !a.Probed.IsZero() && now.Sub(a.Probed) < every && !now.Before(a.Probed) {
		return false
	}
	a.Probed = now.UTC()
	return true
}

// Prune bounds the ledger at now: spend older than a little over a week
// goes, spend older than spendFine is kept per hour, and each list has a
// cap (the oldest go first).
func (b *Book) Prune(now time.Time) {
	now = now.UTC()
	for _, a := range b.Accounts {
		a.prune(now)
	}
	b.Runs = slices.DeleteFunc(b.Runs, func(r Run) bool { return now.Sub(r.Last) > keepFor })
	if len(b.Runs) > maxRuns {
		slices.SortStableFunc(b.Runs, func(x, y Run) int { return x.Last.Compare(y.Last) })
		b.Runs = slices.Clone(b.Runs[len(b.Runs)-maxRuns:])
	}
	if len(b.Accounts) > maxAccounts {
		names := make([]string, 0, len(b.Accounts))
		for n := range b.Accounts {
			names = append(names, n)
		}
		sort.Slice(names, func(i, j int) bool { return b.Accounts[names[i]].last().Before(b.Accounts[names[j]].last()) })
		for _, n := range names[:len(names)-maxAccounts] {
			delete(b.Accounts, n)
		}
	}
}

func (a *Account) prune(now time.Time) {
	a.Spend = slices.DeleteFunc(a.Spend, func(s Spend) bool { return now.Sub(s.At) > keepFor })
	// Spend older than spendFine is kept per run and hour (in place: the
	// entries written never pass the one read).
	out := a.Spend[:0]
	for _, s := range a.Spend {
		if now.Sub(s.At) > spendFine {
			s.At = s.At.Truncate(time.Hour)
			if i := sameHour(out, s); i >= 0 {
				out[i].Calls, out[i].Tokens = out[i].Calls+s.Calls, out[i].Tokens+s.Tokens
				continue
			}
		}
		out = append(out, s)
	}
	if len(out) > maxSpend {
		out = append([]Spend(nil), out[len(out)-maxSpend:]...)
	}
	a.Spend = out
	if len(a.Windows) > maxWindows {
		names := make([]string, 0, len(a.Windows))
		for n := range a.Windows {
			names = append(names, n)
		}
		sort.Slice(names, func(i, j int) bool { return a.Windows[names[i]].Seen.Before(a.Windows[names[j]].Seen) })
		for _, n := range names[:len(names)-maxWindows] {
			delete(a.Windows, n)
		}
	}
}

// sameHour is the entry of out (sorted, its end of hour s.At) for s's
// run, -1 when none.
func sameHour(out []Spend, s Spend) int {
	for i := len(out) - 1; i >= 0 && out[i].At.Equal(s.At); i-- {
		if out[i].Run == s.Run {
			return i
		}
	}
	return -1
}

// last is the account's last activity.
func (a *Account) last() time.Time {
	t := a.Since
	if n := len(a.Spend); n > 0 && a.Spend[n-1].At.After(t) {
		t = a.Spend[n-1].At
	}
	for _, w := range a.Windows {
		if w.Seen.After(t) {
			t = w.Seen
		}
	}
	return t
}

// windowLength is the length of window name: as reported, else as Claude
// names it, else 0 (not known).
func windowLength(w *Window, name string) time.Duration {
	if w != nil && w.Minutes > 0 {
		return time.Duration(w.Minutes) * time.Minute
	}
	switch {
	case name == "five_hour":
		return 5 * time.Hour
	case strings.HasPrefix(name, "seven_day"):
		return 7 * 24 * time.Hour
	}
	return 0
}

func clamp(p float64) float64 {
	if math.IsNaN(p) || p < 0 {
		return 0
	}
	return min(p, 100)
}
