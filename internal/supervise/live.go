package supervise

import (
	"os"
	"sync"
	"syscall"
)

// live is every call Run has under way, for KillAll.
var live = struct {
	sync.Mutex
	calls map[*liveCall]bool
}{calls: map[*liveCall]bool{}}

type liveCall struct {
	t     *tree
	p     *os.Process
	token string
}

// track records a started call until the returned function is called.
func track(t *tree, p *os.Process, token string) func() {
	c := &liveCall{t, p, token}
	live.Lock()
	live.calls[c] = true
	live.Unlock()
	return func() {
		live.Lock()
		delete(live.calls, c)
		live.Unlock()
	}
}

// KillAll ends every call under way at once, without a grace period:
// SIGKILL to its process tree and to the strays that carry its token. It
// is for a process about to exit without waiting for Run to return (a stop
// that found the loop blocked), so that no command it ran — a quality gate
// that ignores SIGTERM, the helpers it started — outlives it.
func KillAll() {
	live.Lock()
	defer live.Unlock()
	for c := range live.calls {
		signalStrays(c.token, syscall.SIGKILL)
		c.t.kill(c.p)
	}
}
