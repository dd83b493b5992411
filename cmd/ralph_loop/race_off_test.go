//go:build !race

package main

// maxRSSKiB bounds the memory of the test binary run as ralph_loop.
const maxRSSKiB = 50 << 10

// raceEnabled: the tests are built with -race, and so is the ralph_loop
// TestMain builds.
const raceEnabled = false
