package events

import "time"

// AgentTick is the ticking line while the agent works in the default (not
// --live) mode, once a second: how long the call has run, how many bytes
// of output it gave so far, and the last tool call its output showed (""
// when the format shows none). A terminal redraws it in place; it is
// never a log line.
type AgentTick struct {
	Agent   string
	Elapsed time.Duration
	Bytes   int64
	Tool    string
}

// AgentTickOver: the call has ended; the ticking line goes.
type AgentTickOver struct{}

func (AgentTick) notice()     {}
func (AgentTickOver) notice() {}
