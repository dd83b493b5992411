//go:build unix

package main

import "github.com/ralphloop/ralph_loop/internal/faketracker"

// The trackers' scenarios (tasks_*.txtar) run fake bd and gh programs
// over a JSON state file ($FAKE_TRACKER_STATE) that log their arguments
// ($FAKE_TRACKER_LOG): the test binary doubles as both.
func init() {
	mainCmds["bd"] = faketracker.Main
	mainCmds["gh"] = faketracker.Main
}
