package guard

import "time"

// Defaults of the outage settings.
const (
	defaultRetryMaxDelay = 30 * time.Minute // RETRY_MAX_DELAY
	defaultOutageMax     = 6 * time.Hour    // OUTAGE_MAX
)

// withOutage sets how transient failures are waited out: the wait after
// each grows as failureBackoff does up to maxDelay (RETRY_MAX_DELAY; below 1
// means defaultRetryMaxDelay), and an outage that has lasted outageMax
// (OUTAGE_MAX; 0 = no limit) gives up. It returns g.
func (g *guard) withOutage(maxDelay, outageMax time.Duration) *guard {
	if maxDelay <= 0 {
		maxDelay = defaultRetryMaxDelay
	}
	g.maxDelay, g.outageMax, g.outageSet = maxDelay, max(outageMax, 0), true
	return g
}

// Transient records a transient failure at now — the provider or the
// way to it failed, not the agent. It does not count toward the
// consecutive failures. The first one starts an outage, which lasts until
// a Success. It returns the wait before the next try: 1 s, 2 s, 4 s, …
// up to RETRY_MAX_DELAY, and never past the outage's end, so the last try
// comes when OUTAGE_MAX is reached. giveUp once the outage has lasted
// OUTAGE_MAX (the wait is then 0).
func (g *guard) Transient(now time.Time) (wait time.Duration, giveUp bool) {
	if !g.outageSet {
		g.withOutage(defaultRetryMaxDelay, defaultOutageMax)
	}
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
func (g *guard) Outage() (since time.Time, tries int, on bool) {
	return g.since, g.tries, g.tries > 0
}

// OutageMax is OUTAGE_MAX (0 = no limit).
func (g *guard) OutageMax() time.Duration {
	if !g.outageSet {
		return defaultOutageMax
	}
	return g.outageMax
}

// backoff doubles from 1 s: 2^(n-1) s, at most limit (n >= 1).
func backoff(n int, limit time.Duration) time.Duration {
	if n > 40 { // 2^40 s is past any limit a duration can hold sensibly
		return limit
	}
	return min(time.Second<<(n-1), limit)
}
