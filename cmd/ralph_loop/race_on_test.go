//go:build race

package main

// maxRSSKiB bounds the memory of the test binary run as ralph_loop: the
// race detector's shadow memory and the larger binary add about half again.
const maxRSSKiB = 100 << 10

// raceEnabled: the tests are built with -race, and so is the ralph_loop
// TestMain builds.
const raceEnabled = true
