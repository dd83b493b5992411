package guard

import "time"

// defaultRetryMaxDelay is RETRY_MAX_DELAY when unset.
const defaultRetryMaxDelay = 30 * time.Minute

// Transient records a transient failure at now — the provider or the
// way to it failed, not the agent. It does not count toward the
// consecutive failures. The first one starts an outage, which lasts until
// a Success. It returns the wait before the next try: 1 s, 2 s, 4 s, …
// up to RETRY_MAX_DELAY, and never past the outage's end, so the last try
// comes when OUTAGE_MAX is reached. giveUp once the outage has lasted
// OUTAGE_MAX (the wait is then 0).
func (g *Guard) Transient(now time.Time) (wait time.Duration, giveUp bool) {
	if g.tries == 0 {
		g.since = now
	}
	g.tries++
	lasted := now.Sub(g.since)
	if g.outageMax > 0 && lasted >= g.outageMax {
		return 0, true
	}
	wait = backoff(g.tries, g.maxDelay)
	if g.outageMax > 0 {
		wait = min(wait, g.outageMax-lasted)
	}
	return wait, false
}

// Outage tells whether an outage is going on: since its first transient
// failure, with tries transient failures so far.
func (g *Guard) Outage() (since time.Time, tries int, on bool) {
	return g.since, g.tries, g.tries > 0
}

// OutageMax is OUTAGE_MAX (0 = no limit).
func (g *Guard) OutageMax() time.Duration { return g.outageMax }

// backoff doubles from 1 s: 2^(n-1) s, at most limit (n >= 1).
func backoff(n int, limit time.Duration) time.Duration {
	if n > 40 { // 2^40 s is past any limit a duration can hold sensibly
		return limit
	}
	return min(time.Second<<(n-1), limit)
}
