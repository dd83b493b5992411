package events

import (
	"time"

	"github.com/ralphloop/ralph_loop/internal/quota"
)

// UsageProjected: at the machine's present burn, a usage window reaches a
// threshold (or its end) before it resets (observe.Observer.UsageProjected;
// docs/USAGE-LIMITS.md). Of all the loops on the machine, one tells of
// each threshold of a window's period.
const UsageProjected Type = "usage_projected"

// Wait kind of the usage governor's soft threshold (and the reserve): no
// call until the window resets.
const WaitUsageSoft = "usage_soft"

// QuotaHold is why the usage governor holds the calls: the threshold Rule
// that Reading's window reached, the person's Reserve (percent of every
// window, 0 for none) and the Ledger's file ("" when none could be used).
// A soft hold is a wait's (Wait.Quota), a hard one a stop's (Stop.Hold).
type QuotaHold struct {
	Rule    quota.Rule
	Reading quota.Reading
	Reserve float64
	Ledger  string
}

// Window is the hold's window as the usage_limits entries show one.
func (h QuotaHold) Window(driver string) UsageWindow {
	r := h.Reading
	w := UsageWindow{Driver: driver, Window: r.Window, Status: r.Status, UsedPercent: r.Used, ResetsAt: r.ResetsAt,
		WindowMinutes: r.Minutes, UpdatedAt: r.At}
	if r.ReportedAt != nil {
		w.UpdatedAt = *r.ReportedAt
	}
	if w.Status == "" {
		w.Status = "allowed"
	}
	return w
}

// Projection is a usage_projected event's value (its "projection"
// object): Window of Account is at UsedPercent (Estimated: not a figure
// the CLI reported but what the calls since use) and, at PerHour percent
// an hour, reaches Threshold (a rule as USAGE_LIMITS writes it, with its
// Kind and Percent; "100%" with no kind for the window's end) at
// ReachesAt, before it resets at ResetsAt (ResetEstimated: guessed from
// the window's length).
type Projection struct {
	Account        string    `json:"account"`
	Window         string    `json:"window"`
	UsedPercent    float64   `json:"used_percent"`
	Estimated      bool      `json:"estimated"`
	Threshold      string    `json:"threshold"`
	Setting        string    `json:"setting,omitempty"` // where the threshold comes from: "USAGE_LIMITS five_hour:soft:85", "USAGE_RESERVE_PERCENT=15"
	Kind           string    `json:"kind,omitempty"`    // soft, hard; absent for the window's end
	Percent        float64   `json:"threshold_percent"`
	ReachesAt      time.Time `json:"reaches_at"`
	ResetsAt       time.Time `json:"resets_at"`
	ResetEstimated bool      `json:"reset_estimated,omitempty"`
	PerHour        float64   `json:"percent_per_hour"`
}

// ProjectionOf is the projection of reading r crossing c.
func ProjectionOf(r quota.Reading, c quota.Crossing) Projection {
	p := Projection{Account: r.Account, Window: r.Window, Estimated: r.Estimated, Percent: c.Rule.Percent,
		ReachesAt: c.At, PerHour: r.PerHour, ResetEstimated: r.ResetGuessed}
	if r.Used != nil {
		p.UsedPercent = *r.Used
	}
	if r.ResetsAt != nil {
		p.ResetsAt = *r.ResetsAt
	}
	if c.Rule.Kind == 0 {
		p.Threshold = "100%"
	} else {
		p.Threshold, p.Setting, p.Kind = c.Rule.String(), c.Rule.Setting(), c.Rule.Kind.String()
	}
	return p
}
