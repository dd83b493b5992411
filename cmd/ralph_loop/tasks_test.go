//go:build unix

package main

import "github.com/ralphloop/ralph_loop/internal/faketracker"

// The trackers' scenarios (tasks_*.txtar) run fake bd and gh programs
// over a JSON state file ($FAKE_TRACKER_STATE) that log their arguments
// ($FAKE_TRACKER_LOG): cmd/faketracker linked as both, ahead on PATH (see
// TestMain), or the test binary where that could not be built.
func init() {
	mainCmds["bd"] = faketracker.Main
	mainCmds["gh"] = faketracker.Main
}
