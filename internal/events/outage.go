package events

import "time"

// OutageWait: a call failed for a transient reason — the provider is
// overloaded or failing, or the way to it is broken (Cause, from the
// agent's line Said) — and the loop waits it out: the next try comes
// after Wait. The outage has lasted Lasted over Tries failed calls and
// stops the run once it lasts Max (0: never, OUTAGE_MAX=0).
type OutageWait struct {
	Cause, Said       string
	Wait, Lasted, Max time.Duration
	Tries             int
}

func (OutageWait) notice() {}
