package events

// BreakerOpenAtStart: the circuit breaker was open when the run started
// and stays open, so nothing runs; Stop says why and what to do.
type BreakerOpenAtStart struct{ Stop Stop }

func (BreakerOpenAtStart) notice() {}
