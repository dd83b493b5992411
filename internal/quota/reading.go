package quota

import (
	"cmp"
	"slices"
	"sort"
	"time"
)

// Reading is what is known of one window of an account at a moment, as
// the governor decides on it and the surfaces show it: its use (measured,
// or estimated from the calls since the last figure), the machine's spend
// in the window and which runs spent it, and the projection.
type Reading struct {
	Account string    `json:"account"`
	Window  string    `json:"window"`
	At      time.Time `json:"at"` // when it was taken
	Status  string    `json:"status,omitempty"`
	// Used is the use to decide on: the last figure reported in this
	// period plus what the calls since then used (Estimated); after a
	// reset with no figure yet, what the calls since the reset used
	// (Estimated). Nil when nothing is known.
	Used      *float64 `json:"used_percent"`
	Estimated bool     `json:"estimated"`
	// The last figure of the period, when and by whom it was reported
	// (a run, or "probe"), and what the machine spent after it (or, with
	// no figure in the period, since the reset).
	Reported    *float64   `json:"reported_percent,omitempty"`
	ReportedAt  *time.Time `json:"reported_at,omitempty"`
	ReportedBy  string     `json:"reported_by,omitempty"`
	CallsSince  int64      `json:"calls_since_report"`
	TokensSince int64      `json:"tokens_since_report"`
	// ResetsAt is when the window resets (ResetGuessed: not reported but
	// the window's length after the first call of the period).
	ResetsAt     *time.Time `json:"resets_at,omitempty"`
	ResetGuessed bool       `json:"reset_estimated,omitempty"`
	Minutes      int        `json:"window_minutes,omitempty"`
	// The machine's spend in the window's period (as far as the ledger
	// knows it began), and which runs spent it, the most first.
	Calls  int64      `json:"calls"`
	Tokens int64      `json:"tokens"`
	Runs   []RunSpend `json:"runs,omitempty"`
	// The projection: the use per hour at the last hour's burn, and when
	// the window is used up at that rate (nil: nothing burns, or what a
	// call uses is not learned yet).
	PerHour float64    `json:"percent_per_hour,omitempty"`
	FullAt  *time.Time `json:"used_up_at,omitempty"`
}

// RunSpend is one run's spend in a window.
type RunSpend struct {
	Run     string    `json:"run"`
	PID     int       `json:"pid"`
	Project string    `json:"project"`
	Calls   int64     `json:"calls"`
	Tokens  int64     `json:"tokens"`
	Last    time.Time `json:"last_call"`
}

// Readings are the windows of account known at now, by name.
func (b *Book) Readings(account string, now time.Time) []Reading {
	a := b.Accounts[account]
	if a == nil {
		return nil
	}
	now = now.UTC()
	names := make([]string, 0, len(a.Windows))
	for n := range a.Windows {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make([]Reading, 0, len(names))
	for _, n := range names {
		r, start := a.reading(n, a.Windows[n], now)
		r.Account = account
		r.Runs = b.runSpend(a, start)
		out = append(out, r)
	}
	return out
}

// reading is window name's Reading at now, and the start of its period.
func (a *Account) reading(name string, w *Window, now time.Time) (Reading, time.Time) {
	r := Reading{Window: name, At: now, Status: w.Status, Minutes: w.Minutes}
	length := windowLength(w, name)
	var start time.Time
	if f := w.Figure; f != nil && f.current(now, length) {
		used := f.Used
		r.Reported, r.ReportedAt, r.ReportedBy = new(f.Used), new(f.At), f.By
		r.CallsSince, r.TokensSince = a.Calls-f.Calls, a.Tokens-f.Tokens
		if r.CallsSince > 0 || r.TokensSince > 0 {
			if more, ok := w.uses(r.CallsSince, r.TokensSince); ok {
				used += more
				r.Estimated = true
			}
		}
		r.Used = new(clamp(used))
		if f.ResetsAt != nil {
			r.ResetsAt = new(*f.ResetsAt)
		} else if w.ResetsAt != nil && now.Before(*w.ResetsAt) {
			r.ResetsAt = new(*w.ResetsAt)
		}
		if r.ResetsAt != nil && length > 0 {
			start = r.ResetsAt.Add(-length)
		}
		start = w.since(start, now)
	} else {
		start = a.periodStart(w, length, now)
		if !start.IsZero() {
			r.CallsSince, r.TokensSince = a.spentSince(start)
			if r.CallsSince == 0 && r.TokensSince == 0 {
				r.Used, r.Estimated = new(0.0), true // reset, and nothing spent since
			} else if more, ok := w.uses(r.CallsSince, r.TokensSince); ok {
				r.Used, r.Estimated = new(clamp(more)), true
			}
		}
		switch {
		case w.ResetsAt != nil && now.Before(*w.ResetsAt):
			r.ResetsAt = new(*w.ResetsAt)
		case !start.IsZero() && length > 0:
			if first, ok := a.firstSpend(start); ok {
				r.ResetsAt, r.ResetGuessed = new(first.Add(length)), true
			}
		}
	}
	from := start
	if from.IsZero() {
		from = now.Add(-max(length, 5*time.Hour))
	}
	r.Calls, r.Tokens = a.spentSince(from)
	r.PerHour = a.burn(w, now)
	if r.Used != nil && r.PerHour > 0 {
		left := time.Duration((100 - *r.Used) / r.PerHour * float64(time.Hour))
		r.FullAt = new(now.Add(left))
	}
	return r, from
}

// current reports whether the figure is of the window's present period:
// before its reset, or, with no reset known, within the window's length
// (an hour for a window of unknown length).
func (f *Figure) current(now time.Time, length time.Duration) bool {
	if f.ResetsAt != nil {
		return now.Before(*f.ResetsAt)
	}
	if length <= 0 {
		length = time.Hour
	}
	return now.Sub(f.At) < length
}

// periodStart is the start of w's present period when no figure of it is
// known: the reset a reported reset time says is ahead (its length
// before), else the last reset that passed; zero when neither is known.
func (a *Account) periodStart(w *Window, length time.Duration, now time.Time) time.Time {
	var start time.Time
	if f := w.Figure; f != nil && f.ResetsAt != nil && !now.Before(*f.ResetsAt) {
		start = *f.ResetsAt
	}
	if w.ResetsAt != nil {
		switch {
		case now.Before(*w.ResetsAt) && length > 0:
			if s := w.ResetsAt.Add(-length); s.After(start) {
				start = s
			}
		case !now.Before(*w.ResetsAt) && w.ResetsAt.After(start):
			start = *w.ResetsAt
		}
	}
	if start.IsZero() {
		return start
	}
	return w.since(start, now)
}

// since is start, or the known beginning of the present period when that
// is later: a window whose reset is closer than its length began at the
// reset before (a week that resets on a fixed day, not a week after the
// first call).
func (w *Window) since(start, now time.Time) time.Time {
	if w.Began != nil && w.Began.After(start) && !w.Began.After(now) && (w.ResetsAt == nil || w.Began.Before(*w.ResetsAt)) {
		return *w.Began
	}
	return start
}

// uses is what calls and tokens use of w, in percent, as far as it has
// learned: by the tokens when both are known, else by the calls.
func (w *Window) uses(calls, tokens int64) (float64, bool) {
	switch {
	case tokens > 0 && w.PerToken > 0:
		return w.PerToken * float64(tokens), true
	case calls > 0 && w.PerCall > 0:
		return w.PerCall * float64(calls), true
	}
	return 0, false
}

// burn is w's use per hour at the spend of the last hour (0: none, or
// not learned).
func (a *Account) burn(w *Window, now time.Time) float64 {
	calls, tokens := a.spentSince(now.Add(-time.Hour))
	u, _ := w.uses(calls, tokens)
	return u
}

// firstSpend is the time of the first spend from t on.
func (a *Account) firstSpend(t time.Time) (time.Time, bool) {
	i := sort.Search(len(a.Spend), func(i int) bool { return !a.Spend[i].At.Before(t.Truncate(time.Minute)) })
	if i == len(a.Spend) {
		return time.Time{}, false
	}
	return a.Spend[i].At, true
}

// runSpend is each run's spend from t on, the most first.
func (b *Book) runSpend(a *Account, t time.Time) []RunSpend {
	var out []RunSpend
	for _, s := range a.Spend {
		if s.At.Before(t.Truncate(time.Minute)) {
			continue
		}
		i := slices.IndexFunc(out, func(r RunSpend) bool { return r.Run == s.Run })
		if i < 0 {
			out = append(out, RunSpend{Run: s.Run})
			i = len(out) - 1
			if j := slices.IndexFunc(b.Runs, func(r Run) bool { return r.ID == s.Run }); j >= 0 {
				out[i].PID, out[i].Project = b.Runs[j].PID, b.Runs[j].Project
			}
		}
		out[i].Calls += s.Calls
		out[i].Tokens += s.Tokens
		if s.At.After(out[i].Last) {
			out[i].Last = s.At
		}
	}
	slices.SortStableFunc(out, func(x, y RunSpend) int {
		if c := cmp.Compare(y.Tokens, x.Tokens); c != 0 {
			return c
		}
		return cmp.Compare(y.Calls, x.Calls)
	})
	return out
}
