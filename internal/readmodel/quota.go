package readmodel

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/ralphloop/ralph_loop/internal/events"
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
	// Rows are the same in words, as --status prints them and the
	// dashboard shows them: a label ("Quota", "Reserve", "Window",
	// "Runs") and its text.
	Rows []QuotaRow `json:"rows"`
}

// QuotaRow is one line of the governor's view for a person.
type QuotaRow struct {
	Label string `json:"label"`
	Text  string `json:"text"`
}

// QuotaAccount is one account's windows.
type QuotaAccount struct {
	Account string          `json:"account"`
	Driver  string          `json:"driver"`
	Windows []quota.Reading `json:"windows"`
}

// QuotaOf is the governor's view at now: the ledger's book b (nil with
// err when it could not be read) read for the accounts of drivers
// (driver → account), under policy p; home shortens the runs' folders
// in the words ("~/work/app").
func QuotaOf(ledger string, b *quota.Book, err error, drivers []string, account func(string) string, p quota.Policy, home string, now time.Time) *QuotaView {
	v := &QuotaView{Ledger: ledger, Limits: []string{}, Stop: p.Stop, Reserve: p.Reserve, Accounts: []QuotaAccount{}}
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
	v.Rows = v.rows(home, now)
	return v
}

// rows are the view in words.
func (q *QuotaView) rows(home string, now time.Time) []QuotaRow {
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
	out := []QuotaRow{{"Quota", strings.Join(set, "; ") + "; ledger " + q.Ledger}}
	if s := events.UsageReserve(q.Reserve); s != "" {
		out = append(out, QuotaRow{"Reserve", s})
	}
	if q.Error != "" {
		out = append(out, QuotaRow{"Ledger", q.Error})
	}
	for _, a := range q.Accounts {
		if len(a.Windows) == 0 {
			out = append(out, QuotaRow{"Window", a.Account + ": no call or report in the ledger yet"})
		}
		for _, r := range a.Windows {
			out = append(out, QuotaRow{"Window", a.Account + " " + events.UsageReading(r, now)})
			if runs := events.UsageRuns(r, home); runs != "" {
				out = append(out, QuotaRow{"Runs", runs})
			}
		}
	}
	return out
}

// write is the governor's part of the summary.
func (q *QuotaView) write(w io.Writer) {
	for _, r := range q.Rows {
		fmt.Fprintf(w, "  %-10s %s\n", r.Label+":", r.Text)
	}
}
