//go:build !linux

package supervise

import (
	"syscall"
	"time"
)

// adoptOrphans does nothing on this system: only Linux has child
// subreapers. A descendant that leaves the agent's process group (setsid)
// is not stopped here; see docs/DESIGN.md.
func adoptOrphans() error { return nil }

func signalStrays(string, syscall.Signal) {}

func stopStrays(string, time.Duration) {}
