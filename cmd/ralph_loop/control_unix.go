//go:build !windows

package main

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

// resizeSignals tell a pane that its terminal changed size.
var resizeSignals = []os.Signal{syscall.SIGWINCH}

// signalLoop asks the loop with pid to skip its wait (SIGUSR1, which it
// takes as a Ctrl+C during a wait) or to stop (SIGTERM).
func signalLoop(pid int, skip bool) error {
	sig := syscall.SIGTERM
	if skip {
		sig = syscall.SIGUSR1
	}
	if err := syscall.Kill(pid, sig); err != nil {
		return fmt.Errorf("cannot signal the loop (pid %d): %w", pid, err)
	}
	return nil
}

// skipOnUSR1 lets another process (--serve's skip control) skip the wait
// under way, as a Ctrl+C from a terminal does. The returned function stops
// listening.
func skipOnUSR1(sig *signals) func() {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGUSR1)
	go func() {
		for range ch {
			sig.stopper.Skip()
		}
	}()
	return func() { signal.Stop(ch); close(ch) }
}
