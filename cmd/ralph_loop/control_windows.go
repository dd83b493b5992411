package main

import (
	"errors"
	"os"
)

// resizeSignals: a Windows console sends no signal when it is resized;
// the status pane's timer redraws it.
var resizeSignals []os.Signal

// signalLoop: Windows has no signal that one process can send another's
// console loop to skip or to stop gracefully.
func signalLoop(int, bool) error {
	return errors.New("skip and stop of a loop in another process are not available on Windows; press Ctrl+C in the loop's window, or run it with --dashboard, whose controls act within its own process")
}

// skipOnUSR1 has nothing to listen to on Windows (see signalLoop).
func skipOnUSR1(*signals) func() { return func() {} }

// fileID is 0 on Windows: size and time tell a change.
func fileID(os.FileInfo) uint64 { return 0 }
