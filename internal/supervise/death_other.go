//go:build unix && !linux

package supervise

import "os/exec"

// dieWithLoop does nothing here: only Linux has a parent-death signal.
// The sentinel (startSentinel) still kills the call's process group.
func dieWithLoop(*exec.Cmd) {}

// killStrays does nothing here: without /proc no process is found by its
// token.
func killStrays(string) {}
