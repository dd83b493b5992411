package main

import (
	"os"
)

// resizeSignals: a Windows console sends no signal when it is resized;
// the status pane's timer redraws it.
var resizeSignals []os.Signal

// skipOnUSR1 has nothing to listen to on Windows (see signalHolder).
func skipOnUSR1(*signals) func() { return func() {} }
