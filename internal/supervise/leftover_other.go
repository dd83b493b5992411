//go:build !linux

package supervise

import (
	"errors"
	"time"
)

// Identify fails here: without /proc a process's start time and
// environment cannot be read, so a record could not be checked later.
func Identify(int, string) (Leader, error) {
	return Leader{}, errors.ErrUnsupported
}

// StopLeftovers does nothing here (see Identify): on macOS the sentinel
// stops a dead loop's calls, on Windows the Job Object does.
func StopLeftovers(Leader, time.Duration) (int, error) { return 0, nil }
