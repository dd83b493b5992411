package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ralphloop/ralph_loop/internal/config"
	"github.com/ralphloop/ralph_loop/internal/engine"
	"github.com/ralphloop/ralph_loop/internal/events"
	"github.com/ralphloop/ralph_loop/internal/ledger"
	"github.com/ralphloop/ralph_loop/internal/quota"
	"github.com/ralphloop/ralph_loop/internal/readmodel"
)

// The usage governor (docs/USAGE-LIMITS.md): on only with its keys
// (config.Config.Governed); its ledger is the person's, placed by their
// environment alone (RALPH_USAGE_LEDGER, XDG_STATE_HOME, HOME).

// usageLedger is the governor's ledger file, or why there is none.
func usageLedger(cfg *config.Config, warn func(string)) (*ledger.File, error) {
	path, err := ledger.Path(func(k string) string {
		if k == ledger.EnvPath {
			return cfg.UsageLedger
		}
		return os.Getenv(k)
	})
	if err != nil {
		return nil, err
	}
	return ledger.Open(path, warn, time.Now), nil
}

// account is the ledger's account of a driver's calls.
func account(driver string) string { return ledger.Account(driver, os.Getenv) }

// newGovernor is this run's side of the ledger (nil when the governor is
// off). Its first line says what governs the run.
func newGovernor(cfg *config.Config, runID, project string, start time.Time, log func(level, msg string)) engine.Quota {
	if !cfg.Governed() {
		return nil
	}
	warn := func(msg string) { log("WARN", msg) }
	f, err := usageLedger(cfg, warn)
	g := ledger.NewGovernor(ledger.Options{
		File: f, PathErr: err,
		Run:     quota.Run{ID: quota.RunKey(runID, os.Getpid()), PID: os.Getpid(), Project: project, Driver: cfg.Driver, Started: start},
		Account: account, Probe: cfg.UsageProbe, Env: os.Environ(), Warn: warn,
	})
	log("INFO", governorLine(cfg, g.Ledger()))
	return g
}

// governorLine says what governs the run: the thresholds, the reserve,
// the probe and the ledger.
func governorLine(cfg *config.Config, path string) string {
	var parts []string
	if len(cfg.UsageLimits) > 0 {
		var rules []string
		for _, r := range cfg.UsageLimits {
			rules = append(rules, r.String())
		}
		parts = append(parts, "USAGE_LIMITS "+strings.Join(rules, ","))
	}
	if cfg.UsageStopPercent > 0 {
		parts = append(parts, "USAGE_STOP_PERCENT="+quota.Percent(cfg.UsageStopPercent))
	}
	if s := events.UsageReserve(cfg.UsageReserve); s != "" {
		parts = append(parts, "reserve: "+s)
	}
	if cfg.UsageProbe != "" {
		parts = append(parts, "USAGE_PROBE_COMMAND at most once a minute")
	}
	if len(parts) == 0 {
		parts = append(parts, "no thresholds (the calls are recorded for the other loops)")
	}
	where := "no ledger"
	if path != "" {
		where = "ledger " + path
	}
	return fmt.Sprintf("Usage governor: %s; %s", strings.Join(parts, "; "), where)
}

// quotaSource reads the governor's view for --status and the dashboard:
// the ledger peeked (no lock taken, nothing written or moved).
type quotaSource struct {
	cfg  *config.Config
	file *ledger.File
	err  error
	home string
}

var _ readmodel.Quota = (*quotaSource)(nil)

// newQuotaSource is the governor's view of cfg's project, nil when the
// governor is off.
func newQuotaSource(cfg *config.Config) *quotaSource {
	if !cfg.Governed() {
		return nil
	}
	f, err := usageLedger(cfg, nil)
	home, _ := os.UserHomeDir()
	return &quotaSource{cfg: cfg, file: f, err: err, home: home}
}

// View is the ledger at now, for the project's drivers.
func (q *quotaSource) View(now time.Time) *readmodel.QuotaView {
	drivers := []string{q.cfg.Driver}
	if q.cfg.FallbackDriver != "" {
		drivers = append(drivers, q.cfg.FallbackDriver)
	}
	var b *quota.Book
	err := q.err
	path := ""
	if q.file != nil {
		path = q.file.Path()
		b, err = q.file.Peek()
	}
	return readmodel.QuotaOf(path, b, err, drivers, account, q.cfg.UsagePolicy(), q.home, now)
}

// Stamp changes when the ledger does.
func (q *quotaSource) Stamp() string {
	if q.file == nil {
		return "-"
	}
	st, err := os.Lstat(q.file.Path())
	if err != nil {
		return "-"
	}
	return fmt.Sprintf("%d.%d", st.Size(), st.ModTime().UnixNano())
}

// projectPath is the project folder as the ledger names its runs.
func projectPath(cwd string) string {
	if p, err := filepath.Abs(cwd); err == nil {
		return p
	}
	return cwd
}
