package main

import (
	"fmt"
	"io"

	"github.com/ralphloop/ralph_loop/internal/config"
	"github.com/ralphloop/ralph_loop/internal/ralphdir"
)

// clean is --clean [--keep N]: it removes the output, stderr and stream
// logs of all but the last N agent calls (LOG_KEEP when --keep is not
// given; LOG_KEEP=0 keeps them all) and every rotated log, and prints one
// line per kind and the total freed. A running loop holds the lock and
// the clean-up is refused.
func clean(d *ralphdir.Dir, cfg *config.Config, stdout io.Writer) error {
	lock, err := lockForReset(d, "--clean")
	if err != nil {
		return err
	}
	defer lock.Unlock()
	keep := cfg.CleanKeep
	if keep < 0 {
		keep = cfg.LogKeep
		if keep == 0 {
			keep = -1 // LOG_KEEP=0: every call's logs are kept
		}
	}
	calls, err := d.PruneCallLogs(keep, "")
	if err != nil {
		return err
	}
	rotated := d.RemoveRotated()
	fmt.Fprintf(stdout, "Removed %d call log files (%d bytes)\n", calls.Files, calls.Bytes)
	fmt.Fprintf(stdout, "Removed %d rotated log files (%d bytes)\n", rotated.Files, rotated.Bytes)
	fmt.Fprintf(stdout, "Freed %d bytes\n", calls.Bytes+rotated.Bytes)
	return nil
}
