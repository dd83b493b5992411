//go:build race

package analysis_test

// raceEnabled: the tests are built with -race.
const raceEnabled = true
