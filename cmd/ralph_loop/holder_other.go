//go:build !linux

package main

import "errors"

// signalHolder: only Linux tells which process holds a lock (/proc/locks),
// and the pid written in the lock file is not to be trusted, so skip and
// stop of a loop in another process are not offered here.
func signalHolder(string, bool) error {
	return errors.New("skip and stop of a loop in another process are only available on Linux, where the process holding the lock can be proven; press Ctrl+C in the loop's window, or run it with --dashboard, whose controls act within its own process")
}
