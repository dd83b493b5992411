package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/ralphloop/ralph_loop/internal/config"
	"github.com/ralphloop/ralph_loop/internal/engine"
)

// exitError ends the program with an exit code and the lines that explain
// it, shown exactly as given: for the endings whose words are not the usual
// one "ralph_loop: <error>" line on stderr.
type exitError struct {
	code  int
	lines []string // shown one per line on stderr; none for an ending already explained
}

func (e *exitError) Error() string {
	if len(e.lines) == 0 {
		return fmt.Sprintf("exit status %d", e.code)
	}
	return e.lines[0]
}

// exitStatus ends the program with code and nothing more to say: nil for 0.
func exitStatus(code int) error {
	if code == 0 {
		return nil
	}
	return &exitError{code: code}
}

// exitCode is the one end of every command: it shows err once and turns it
// into the process exit code. A usage error is shown as the bash loop
// shows it; a stop by a signal was announced when it arrived and exits
// 128 + the signal's number; any other error is one line on stderr and
// exit code 1 (the bash loop's code for every start-up failure).
func exitCode(err error, stdout, stderr io.Writer) int {
	var (
		ue   *config.UsageError
		stop *engine.SignalError
		ee   *exitError
	)
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ue):
		showUsageError(ue, stdout, stderr)
		return ue.ExitCode()
	case errors.As(err, &stop):
		return stop.Code
	case errors.As(err, &ee):
		for _, line := range ee.lines {
			fmt.Fprintln(stderr, line)
		}
		return ee.code
	default:
		fmt.Fprintf(stderr, "ralph_loop: %v\n", err)
		return 1
	}
}

// showUsageError shows a bad command line or configuration value: one line
// on stderr, as every error is. A script reading stdout also gets the line
// the bash loop prints there (the bad value's message, or its short form for
// an unknown flag: docs/COMPATIBILITY.md); a person at a terminal sees only
// the stderr line.
func showUsageError(ue *config.UsageError, stdout, stderr io.Writer) {
	if !ue.Unknown {
		fmt.Fprintf(stderr, "ralph_loop: %s\n", ue.Error())
		if !isTerminal(stdout) {
			fmt.Fprintln(stdout, ue.Error())
		}
		return
	}
	fmt.Fprintln(stderr, ue.Error())
	if !isTerminal(stdout) && ue.Key != "" {
		fmt.Fprintf(stdout, "Unknown option: %s\nUsage: ralph_loop [OPTIONS] (ralph_loop --help-all lists all)\n", ue.ShownKey())
	}
}
