package ledger

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"time"

	"github.com/ralphloop/ralph_loop/drivers"
	"github.com/ralphloop/ralph_loop/internal/gates"
	"github.com/ralphloop/ralph_loop/internal/quota"
	"github.com/ralphloop/ralph_loop/internal/supervise"
)

// Account is the ledger's name for the account a driver's calls spend:
// the driver, and the folder its CLI logs in from when the person names
// one ($CLAUDE_CONFIG_DIR, $CODEX_HOME), so that two logins on one
// machine are two accounts.
func Account(driver string, getenv func(string) string) string {
	if v := drivers.AccountEnv(driver); v != "" {
		if d := getenv(v); d != "" {
			return driver + ":" + filepath.Clean(d)
		}
	}
	return driver
}

// The probe (USAGE_PROBE_COMMAND): at most once a minute per account on
// the machine (whichever loop comes first runs it), for at most
// probeTimeout, its output read up to probeOutput.
const (
	ProbeEvery   = time.Minute
	probeTimeout = 30 * time.Second
	probeOutput  = 1 << 20
)

// Options make a Governor.
type Options struct {
	File    *File // nil: no ledger (PathErr says why); the run decides from its own calls
	PathErr error
	Run     quota.Run // this run: its key (quota.RunKey), pid, project, start
	Account func(driver string) string
	// Probe is USAGE_PROBE_COMMAND, run with bash -c (the person's own);
	// Env its environment. "" runs none.
	Probe string
	Env   []string
	Warn  func(string) // one line for a person, at WARN
	// RunCmd runs the probe (supervise.Run when nil).
	RunCmd func(context.Context, supervise.Command, supervise.Options) supervise.Outcome
}

// Governor is one run's side of the ledger, as the engine asks it before
// each call (Look) and tells it after (Record). When the ledger cannot be
// used (no place for it, locked by a stopped process, an unwritable
// folder) it says so once and keeps the book in memory: the last one it
// read, with this run's calls, which it writes when the ledger can be
// written again. It is safe for one run's goroutines.
type Governor struct {
	o Options

	mu      sync.Mutex
	mem     *quota.Book // the last book read, with what was not written since
	pending []pendingEntry
	warned  map[string]bool
	retry   time.Time // a ledger that failed is tried again from then on
}

// retryAfter is how long a ledger that could not be used is left alone:
// a lock held by a stopped process costs a run lockWait once a minute,
// not at every call.
const retryAfter = time.Minute

type pendingEntry struct {
	at time.Time
	e  quota.Entry
}

// maxPending bounds the calls kept for a ledger that cannot be written.
const maxPending = 512

// NewGovernor is the governor of one run.
func NewGovernor(o Options) *Governor {
	if o.Warn == nil {
		o.Warn = func(string) {}
	}
	if o.RunCmd == nil {
		o.RunCmd = supervise.Run
	}
	if o.Account == nil {
		o.Account = func(d string) string { return d }
	}
	return &Governor{o: o, mem: &quota.Book{Version: quota.Version}, warned: map[string]bool{}}
}

// Ledger is the ledger's file ("" when none could be placed).
func (g *Governor) Ledger() string {
	if g.o.File == nil {
		return ""
	}
	return g.o.File.Path()
}

// Account is the account driver's calls spend.
func (g *Governor) Account(driver string) string { return g.o.Account(driver) }

// Look is what is known now of the windows of the account driver's calls
// spend: the probe's report first, when one is due.
func (g *Governor) Look(ctx context.Context, driver string, now time.Time) []quota.Reading {
	acct := g.o.Account(driver)
	if g.o.Probe != "" {
		g.probe(ctx, acct, now)
	}
	return g.update(now, nil).Readings(acct, now)
}

// Record adds one call of driver (its tokens, the windows it reported) and
// returns the account's readings after it.
func (g *Governor) Record(driver string, now time.Time, tokens int64, reports []quota.Report) []quota.Reading {
	acct := g.o.Account(driver)
	e := quota.Entry{Account: acct, Run: g.o.Run, Calls: 1, Tokens: tokens, Reports: reports, By: g.o.Run.ID}
	return g.update(now, &e).Readings(acct, now)
}

// Claim reports whether this run is the one to tell of a projection
// (quota.Book.Claim); without the ledger, whether it told of it yet.
func (g *Governor) Claim(driver, window, key string, now time.Time) bool {
	acct := g.o.Account(driver)
	claimed := false
	g.change(now, func(b *quota.Book) { claimed = b.Claim(acct, window, key) }, nil)
	return claimed
}

// update adds e (when not nil) at now and returns the book.
func (g *Governor) update(now time.Time, e *quota.Entry) *quota.Book {
	return g.change(now, func(b *quota.Book) {
		if e != nil {
			b.Add(now, *e)
		}
	}, e)
}

// change applies f to the ledger, after the calls that could not be
// written before, or to the book in memory when the ledger cannot be
// used; then e, the call f adds (nil: none), waits to be written.
func (g *Governor) change(now time.Time, f func(*quota.Book), e *quota.Entry) *quota.Book {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.o.File != nil && !now.Before(g.retry) {
		b, err := g.o.File.Update(func(b *quota.Book) {
			for _, p := range g.pending {
				b.Add(p.at, p.e)
			}
			f(b)
		})
		if err == nil {
			if len(g.pending) > 0 {
				g.o.Warn(fmt.Sprintf("the usage ledger %s is written again, with the %d call(s) of this run it missed", g.o.File.Path(), len(g.pending)))
			}
			g.pending, g.mem = nil, b
			return b
		}
		g.warnOnce(err.Error() + "; until it can be written, this run decides from its own calls and the ledger as last read")
		g.retry = now.Add(retryAfter)
	}
	if g.o.File != nil {
		if e != nil {
			g.pending = append(g.pending, pendingEntry{at: now, e: *e})
			if len(g.pending) > maxPending {
				g.pending = g.pending[len(g.pending)-maxPending:]
			}
		}
	} else {
		g.warnOnce(fmt.Sprintf("%v; this run decides from its own calls only", g.o.PathErr))
	}
	f(g.mem)
	return g.mem
}

func (g *Governor) warnOnce(msg string) {
	if !g.warned[msg] {
		g.warned[msg] = true
		g.o.Warn(msg)
	}
}

// probe runs USAGE_PROBE_COMMAND for acct when no loop on the machine did
// within ProbeEvery, and records what it reported.
func (g *Governor) probe(ctx context.Context, acct string, now time.Time) {
	due := false
	g.change(now, func(b *quota.Book) { due = b.ClaimProbe(acct, now, ProbeEvery) }, nil)
	if !due {
		return
	}
	out := &capped{max: probeOutput}
	o := g.o.RunCmd(ctx, supervise.Command{Argv: gates.ShellArgv(g.o.Probe), Env: g.o.Env}, supervise.Options{Timeout: probeTimeout, MaxOutput: 2 * probeOutput, Stdout: out, Stderr: &capped{max: 0}})
	switch {
	case o.Reason == supervise.Canceled:
		return
	case o.Reason == supervise.TimedOut:
		g.warnOnce(fmt.Sprintf("USAGE_PROBE_COMMAND did not finish within %s; the governor goes on without its report", probeTimeout))
		return
	case o.Reason != supervise.Exited || o.ExitCode != 0:
		why := fmt.Sprintf("exited %d", o.ExitCode)
		if o.Err != nil {
			why = o.Err.Error()
		}
		g.warnOnce("USAGE_PROBE_COMMAND failed (" + why + "); the governor goes on without its report")
		return
	}
	reports, err := quota.ParseProbe(out.Bytes(), now)
	if err != nil {
		g.warnOnce("USAGE_PROBE_COMMAND's output is no usage report: " + err.Error() + " (docs/USAGE-LIMITS.md shows what it may print)")
		return
	}
	e := quota.Entry{Account: acct, Run: g.o.Run, Reports: reports, By: "probe"}
	g.change(now, func(b *quota.Book) { b.Add(now, e) }, &e)
}

// capped keeps the first max bytes written to it.
type capped struct {
	bytes.Buffer
	max int
}

func (c *capped) Write(p []byte) (int, error) {
	if room := c.max - c.Len(); room > 0 {
		c.Buffer.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}
