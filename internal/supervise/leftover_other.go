//go:build !linux

package supervise

import (
	"errors"
	"time"
)

// identify fails here: without /proc a process's start time and
// environment cannot be read, so a record could not be checked later.
func identify(int, string) (callRecord, error) {
	return callRecord{}, errors.ErrUnsupported
}

// stopLeftovers does nothing here (see identify): on macOS the sentinel
// stops a dead loop's calls, on Windows the Job Object does.
func stopLeftovers(callRecord, time.Duration) (int, error) { return 0, nil }
