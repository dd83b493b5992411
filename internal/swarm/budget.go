package swarm

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/ralphloop/ralph_loop/internal/engine"
	"github.com/ralphloop/ralph_loop/internal/ralphdir"
	"github.com/ralphloop/ralph_loop/ratelimit"
)

// envDir tells a worker's loop the swarm's folder (an absolute path to
// .swarm): its calls then count against the budget all workers share, and
// a usage limit one worker meets holds back every worker.
const envDir = "RALPH_SWARM_DIR"

// Files of the shared budget, under .swarm/.
const (
	callsFile = ".call_count"  // "<hour> <count>": the calls this clock hour, all workers together
	limitFile = ".usage_limit" // "<driver> <unix seconds>" lines: until when a driver is at its usage limit
	lockFile  = ".budget.lock" // flock serialising the two
)

// shared is what the workers of one swarm share, in its folder. It is
// used from several processes at once: every read-and-write holds a file
// lock.
type shared struct{ dir string }

// newShared is the shared budget of the swarm whose folder is dir.
func newShared(dir string) *shared { return &shared{dir: dir} }

// locked runs f holding the budget's lock: a regular file the swarm made,
// never opened through a link.
func (s *shared) locked(f func() error) error {
	l, _, err := ralphdir.LockPath(filepath.Join(s.dir, lockFile), true)
	if err != nil {
		return fmt.Errorf("lock the swarm's budget: %w", err)
	}
	defer l.Unlock()
	return f()
}

// read is the budget's file name, "" when it cannot be read (or is not a
// regular file: no link is followed).
func (s *shared) read(name string) string {
	b, err := ralphdir.ReadFileBeneath(s.dir, name, 64<<10)
	if err != nil {
		return ""
	}
	return string(b)
}

// TakeCall counts one more call in the clock hour of now, unless the
// workers together already made max calls in it; it reports whether the
// call may go. An unreadable budget lets the call go (the worker's own
// hourly limit still holds).
func (s *shared) TakeCall(now time.Time, max int) bool {
	ok := true
	_ = s.locked(func() error {
		count := s.calls(now)
		if max > 0 && count >= max {
			ok = false
			return nil
		}
		return ralphdir.WriteFileAtomic(filepath.Join(s.dir, callsFile), []byte(ratelimit.HourKey(now)+" "+strconv.Itoa(count+1)+"\n"), 0o644)
	})
	return ok
}

// calls is the calls all workers made in the clock hour of now.
func (s *shared) calls(now time.Time) int {
	if f := strings.Fields(s.read(callsFile)); len(f) == 2 && f[0] == ratelimit.HourKey(now) {
		n, _ := strconv.Atoi(f[1])
		return n
	}
	return 0
}

// limits reads the usage-limit lines: driver → until.
func (s *shared) limits() map[string]time.Time {
	m := map[string]time.Time{}
	for _, l := range strings.Split(s.read(limitFile), "\n") {
		f := strings.Fields(l)
		if len(f) != 2 {
			continue
		}
		if sec, err := strconv.ParseInt(f[1], 10, 64); err == nil {
			m[f[0]] = time.Unix(sec, 0)
		}
	}
	return m
}

// LimitHit records that driver is at its usage limit until until, for
// every worker; a later until than the one known wins.
func (s *shared) LimitHit(driver string, until time.Time) {
	_ = s.locked(func() error {
		m := s.limits()
		if until.After(m[driver]) {
			m[driver] = until
		}
		var b strings.Builder
		for d, t := range m {
			fmt.Fprintf(&b, "%s %d\n", d, t.Unix())
		}
		return ralphdir.WriteFileAtomic(filepath.Join(s.dir, limitFile), []byte(b.String()), 0o644)
	})
}

// LimitUntil is until when driver is at its usage limit, as any worker
// met it (zero: not known to be).
func (s *shared) LimitUntil(driver string) time.Time { return s.limits()[driver] }

// FromEnv is the shared budget a worker's loop uses, from envDir; nil when
// the loop is not a swarm's worker.
func FromEnv(lookup func(string) (string, bool)) engine.Swarm {
	d, ok := lookup(envDir)
	if !ok || d == "" || !filepath.IsAbs(d) {
		return nil
	}
	if st, err := os.Stat(d); err != nil || !st.IsDir() {
		return nil
	}
	return newShared(d)
}
