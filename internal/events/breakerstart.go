package events

// BreakerOpenAtStart: the circuit breaker was open when the run started
// and stays open, so nothing runs; Stop says why and what to do, Next
// what to look at first and when the cooldown lets one loop try.
type BreakerOpenAtStart struct {
	Stop Stop
	Next string
}

func (BreakerOpenAtStart) notice() {}

// EmptyPlan: the run starts with a plan (File) that lists no task, or
// none at all (Missing): the agent has only the prompt to go on.
type EmptyPlan struct {
	File    string
	Missing bool
}

func (EmptyPlan) notice() {}
