package main

import (
	"fmt"
	"io"
	"strconv"

	"github.com/ralphloop/ralph_loop/internal/clip"
	"github.com/ralphloop/ralph_loop/internal/config"
	"github.com/ralphloop/ralph_loop/internal/events"
	"github.com/ralphloop/ralph_loop/internal/ralphdir"
)

// cleanCommand is --clean [--keep N].
var cleanCommand = &command{
	flag: &flagSpec{Flag: config.Flag{Long: "clean", Group: config.GroupCommands,
		Help: "remove the logs of old agent calls (beyond LOG_KEEP) and the rotated logs; print what was freed"}, kind: commandFlag},
	options: []*flagSpec{keepFlag},
	refuse:  refusesLive("--clean"),
	run:     func(e *runEnv, l *line) error { return clean(e.dir, e.cfg.LogKeep, cleanOptionsOf(l), e.safeOut) },
}

// cleanOptions are --clean's: the calls whose logs it keeps (--keep N; -1
// when not given: LOG_KEEP applies).
type cleanOptions struct {
	keep int
}

func cleanOptionsOf(l *line) cleanOptions {
	o := cleanOptions{keep: -1}
	if l.has("keep") {
		o.keep, _ = strconv.Atoi(l.value("keep")) // checked as it was read
	}
	return o
}

// keepFlag is --keep N.
var keepFlag = &flagSpec{
	Flag: config.Flag{Long: "keep", Arg: "N", Group: config.GroupCommands, Help: "with --clean: keep the logs of the last N calls instead"},
	check: func(v string) error {
		if n, err := strconv.Atoi(v); err != nil || n < 0 {
			return flagError("--keep", fmt.Sprintf("Invalid --keep: '%s'; expected an integer >= 0 (the agent calls whose logs --clean keeps)", clip.Value(v)))
		}
		return nil
	},
	refused: func(string) error {
		return flagError("--keep", "--keep only applies to --clean")
	},
}

// clean is --clean [--keep N]: it removes the output, stderr and stream
// logs of all but the last N agent calls (LOG_KEEP when --keep is not
// given; LOG_KEEP=0 keeps them all) and every rotated log, and prints one
// line per kind and the total freed. A running loop holds the lock and
// the clean-up is refused.
func clean(d *ralphdir.Dir, logKeep int, o cleanOptions, stdout io.Writer) error {
	lock, err := lockForReset(d, "--clean")
	if err != nil {
		return err
	}
	defer lock.Unlock()
	keep := o.keep
	if keep < 0 {
		keep = logKeep
		if keep == 0 {
			keep = -1 // LOG_KEEP=0: every call's logs are kept
		}
	}
	calls, err := d.PruneCallLogs(keep, "")
	if err != nil {
		return err
	}
	rotated := d.RemoveRotated()
	fmt.Fprintf(stdout, "Removed %d call log %s (%s)\n", calls.Files, fileWord(calls.Files), events.ByteSize(calls.Bytes))
	fmt.Fprintf(stdout, "Removed %d rotated log %s (%s)\n", rotated.Files, fileWord(rotated.Files), events.ByteSize(rotated.Bytes))
	fmt.Fprintf(stdout, "Freed %s\n", events.ByteSize(calls.Bytes+rotated.Bytes))
	return nil
}

// fileWord is "file" or "files" for n files.
func fileWord(n int) string {
	if n == 1 {
		return "file"
	}
	return "files"
}
