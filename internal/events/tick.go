package events

// AgentTickOver: the call has ended; the ticking line (AgentWorking, said)
// goes.
type AgentTickOver struct{}

func (AgentWorking) notice()  {}
func (AgentTickOver) notice() {}
