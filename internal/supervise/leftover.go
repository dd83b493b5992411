package supervise

// Leader identifies the process that leads a call's group, as a loop
// records it while the call runs (Options.Started, Identify), so that a
// later loop can stop what a loop that died left running (StopLeftovers).
// Only Linux records it.
type Leader struct {
	Pid   int    `json:"pid"`
	Start uint64 `json:"start_ticks"` // /proc/PID/stat field 22: clock ticks after boot
	Token string `json:"token"`       // the TokenVar=value entry of its environment
}
