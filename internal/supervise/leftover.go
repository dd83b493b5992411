package supervise

import (
	"encoding/json"
	"fmt"
	"io"
	"time"
)

// callRecord identifies the process that leads a call's group, as a loop
// records it while the call runs (Options.Record, identify), so that a
// later loop can stop what a loop that died left running (Guard,
// stopLeftovers). Only Linux records it.
type callRecord struct {
	Pid   int    `json:"pid"`
	Start uint64 `json:"start_ticks"` // /proc/PID/stat field 22: clock ticks after boot
	Token string `json:"token"`       // the tokenVar=value entry of its environment
}

// recordOf is the record Options.Record receives for the call led by pid
// that carries token: indented JSON and a newline.
func recordOf(pid int, token string) ([]byte, error) {
	rec, err := identify(pid, token)
	if err != nil {
		return nil, err
	}
	b, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// leftoverGrace is how long an agent a dead loop left running gets between
// SIGTERM and SIGKILL at start-up.
const leftoverGrace = 5 * time.Second

// Guard makes sure no call outlives this process. It is called once, with
// the project's lock held, before the first call: it stops the call a
// previous run left running, as recorded through Options.Record, makes
// this process a child subreaper (see adoptOrphans), and has the first
// call start the sentinel (see startSentinel) before that call starts.
// load decodes that record into the value it is given (false: there is
// none, or it was unreadable); remove deletes it once it is dealt with. A
// sentinel that cannot start and a subreaper this process cannot become
// are warnings on stderr; a proven leftover that cannot be stopped
// refuses the start.
func Guard(load func(record any) (found bool, err error), remove func() error, stderr io.Writer) error {
	var rec callRecord
	if found, err := load(&rec); err == nil && found {
		n, err := stopLeftovers(rec, leftoverGrace)
		if err != nil {
			return fmt.Errorf("the agent a previous run left running (pid %d) could not be stopped: %w; stop it (kill -- -%d) and run ralph_loop again", rec.Pid, err, rec.Pid)
		}
		if n > 0 {
			fmt.Fprintf(stderr, "ralph_loop: warning: stopped %d process(es) of the agent call a previous run left running (pid %d)\n", n, rec.Pid)
		}
		if err := remove(); err != nil {
			return err
		}
	}
	// An agent's helper that leaves its process group (setsid) is
	// re-parented to us, to be stopped and reaped when the call ends.
	if err := adoptOrphans(); err != nil {
		fmt.Fprintf(stderr, "ralph_loop: warning: cannot become a child subreaper (%v); an agent's helper that calls setsid may outlive its call\n", err)
	}
	armSentinel(stderr)
	return nil
}
