package readmodel

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/ralphloop/ralph_loop/internal/console"
	"github.com/ralphloop/ralph_loop/internal/quota"
)

// QuotaView is what --status, the dashboard and the monitor pane show of
// the usage governor (docs/USAGE-LIMITS.md): the machine's ledger, the
// person's thresholds and reserve, and per account of the project's
// drivers each window's use (measured or estimated), reset, the machine's
// spend and the runs spending it, and the projection. Absent from the
// View when the governor is off.
type QuotaView struct {
	Ledger   string         `json:"ledger"`
	Error    string         `json:"error,omitempty"` // why the ledger could not be read
	Limits   []string       `json:"limits"`          // USAGE_LIMITS's rules, "five_hour:soft:85"
	Stop     float64        `json:"stop_percent,omitempty"`
	Reserve  float64        `json:"reserve_percent"`
	Accounts []QuotaAccount `json:"accounts"`
	// Home shortens the runs' folders in the text ("~/work/app"); not in
	// the JSON.
	Home string    `json:"-"`
	At   time.Time `json:"-"`
}

// QuotaAccount is one account's windows.
type QuotaAccount struct {
	Account string          `json:"account"`
	Driver  string          `json:"driver"`
	Windows []quota.Reading `json:"windows"`
}

// QuotaOf is the governor's view at now: the ledger's book b (nil with
// err when it could not be read) read for the accounts of drivers
// (driver → account), under policy p.
func QuotaOf(ledger string, b *quota.Book, err error, drivers []string, account func(string) string, p quota.Policy, now time.Time) *QuotaView {
	v := &QuotaView{Ledger: ledger, Limits: []string{}, Stop: p.Stop, Reserve: p.Reserve, Accounts: []QuotaAccount{}, At: now}
	for _, r := range p.Limits {
		v.Limits = append(v.Limits, r.String())
	}
	if err != nil {
		v.Error = err.Error()
	}
	for _, d := range drivers {
		a := QuotaAccount{Account: account(d), Driver: d, Windows: []quota.Reading{}}
		if b != nil {
			if rs := b.Readings(a.Account, now); rs != nil {
				a.Windows = rs
			}
		}
		v.Accounts = append(v.Accounts, a)
	}
	return v
}

// writeQuota is the governor's part of the summary.
func (q *QuotaView) write(w io.Writer) {
	var set []string
	if len(q.Limits) > 0 {
		set = append(set, "USAGE_LIMITS "+strings.Join(q.Limits, ","))
	}
	if q.Stop > 0 {
		set = append(set, "USAGE_STOP_PERCENT="+quota.Percent(q.Stop))
	}
	if len(set) == 0 {
		set = append(set, "no thresholds")
	}
	fmt.Fprintf(w, "  Quota:     %s; ledger %s\n", strings.Join(set, "; "), q.Ledger)
	if s := console.UsageReserve(q.Reserve); s != "" {
		fmt.Fprintf(w, "  Reserve:   %s\n", s)
	}
	if q.Error != "" {
		fmt.Fprintf(w, "  Ledger:    %s\n", q.Error)
	}
	for _, a := range q.Accounts {
		if len(a.Windows) == 0 {
			fmt.Fprintf(w, "  Window:    %s: no call or report in the ledger yet\n", a.Account)
		}
		for _, r := range a.Windows {
			fmt.Fprintf(w, "  Window:    %s %s\n", a.Account, console.UsageReading(r, q.At))
			if runs := console.UsageRuns(r, q.Home); runs != "" {
				fmt.Fprintf(w, "  Runs:      %s\n", runs)
			}
		}
	}
}
