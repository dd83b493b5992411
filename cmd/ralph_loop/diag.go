package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/ralphloop/ralph_loop/breaker"
	"github.com/ralphloop/ralph_loop/config"
	"github.com/ralphloop/ralph_loop/ralphdir"
	"github.com/ralphloop/ralph_loop/session"
)

// showStatus is --status: status.json, pretty-printed, unchanged on disk.
func showStatus(d *ralphdir.Dir, stdout io.Writer) int {
	data, found, err := d.ReadFile(ralphdir.Status)
	if err != nil {
		fmt.Fprintf(stdout, "Cannot show the status: %v\n", err)
		return 1
	}
	if !found {
		fmt.Fprintln(stdout, "No status file found. Ralph may not be running.")
		return 0
	}
	fmt.Fprintln(stdout, "Current Status:")
	var pretty bytes.Buffer
	if json.Indent(&pretty, bytes.TrimSpace(data), "", "  ") == nil {
		pretty.WriteByte('\n')
		stdout.Write(pretty.Bytes())
		return 0
	}
	// Read-only: a damaged file is shown as it is, never moved or fixed here.
	stdout.Write(data)
	fmt.Fprintf(stdout, "\n(warning: %s is not valid JSON; the loop will move it aside on its next write)\n", d.Path(ralphdir.Status))
	return 0
}

// breakerConfig is the breaker's view of the configuration.
func breakerConfig(c *config.Config) breaker.Config {
	return breaker.Config{
		NoProgressThreshold:       c.CBNoProgressThreshold,
		SameErrorThreshold:        c.CBSameErrorThreshold,
		OutputDeclineThreshold:    c.CBOutputDeclineThreshold,
		PermissionDenialThreshold: c.CBPermissionDenialThreshold,
		ReadOnlyTimeoutThreshold:  c.CBReadOnlyTimeoutThreshold,
		Cooldown:                  c.CBCooldown(),
		AutoReset:                 c.CBAutoReset,
		CountPermissionDenials:    c.PermissionDenialMode == "threshold",
	}
}

// circuitStatus is --circuit-status: the breaker's state, why, and what to
// do next. It creates a CLOSED state when there is none, as the reference
// does, and otherwise changes nothing.
func circuitStatus(d *ralphdir.Dir, c *config.Config, stdout, stderr io.Writer) int {
	if err := d.EnsureLayout(); err != nil {
		fmt.Fprintf(stderr, "ralph_loop: %v\n", err)
		return 1
	}
	now := time.Now()
	s, err := breaker.LoadOrCreate(d, now)
	if err != nil {
		fmt.Fprintf(stderr, "ralph_loop: %v\n", err)
		return 1
	}
	breaker.EnsureHistory(d)
	for _, line := range breaker.Describe(s, now, breakerConfig(c)) {
		fmt.Fprintln(stdout, line)
	}
	return 0
}

func sessionStore(d *ralphdir.Dir, stderr io.Writer) *session.Store {
	return session.New(d, func(level, msg string) {
		fmt.Fprintf(stderr, "[%s] [%s] %s\n", time.Now().Format("2006-01-02 15:04:05"), level, msg)
	})
}

// resetCircuit is --reset-circuit: a fresh CLOSED breaker and a session
// reset (manual_circuit_reset).
func resetCircuit(d *ralphdir.Dir, stdout, stderr io.Writer) int {
	if err := d.EnsureLayout(); err != nil {
		fmt.Fprintf(stderr, "ralph_loop: %v\n", err)
		return 1
	}
	now := time.Now()
	if err := breaker.Save(d, breaker.Reset("Manual reset via command line", now)); err != nil {
		fmt.Fprintf(stderr, "ralph_loop: %v\n", err)
		return 1
	}
	fmt.Fprintln(stdout, "\033[0;32m✅ Circuit breaker reset to CLOSED state\033[0m")
	if err := sessionStore(d, stderr).Reset(session.ReasonManualCircuitReset, 0, now); err != nil {
		fmt.Fprintf(stderr, "ralph_loop: %v\n", err)
		return 1
	}
	return 0
}

// resetSession is --reset-session (manual_reset_flag).
func resetSession(d *ralphdir.Dir, stdout, stderr io.Writer) int {
	if err := d.EnsureLayout(); err != nil {
		fmt.Fprintf(stderr, "ralph_loop: %v\n", err)
		return 1
	}
	if err := sessionStore(d, stderr).Reset(session.ReasonManualResetFlag, 0, time.Now()); err != nil {
		fmt.Fprintf(stderr, "ralph_loop: %v\n", err)
		return 1
	}
	fmt.Fprintln(stdout, "\033[0;32m✅ Session state reset successfully\033[0m")
	return 0
}

// pause is --pause / --resume: a marker file the running loop (and the
// next start) looks at between agent calls.
func pause(d *ralphdir.Dir, on bool, stdout, stderr io.Writer) int {
	if on {
		if err := d.WriteFile(ralphdir.PauseFile, []byte(time.Now().UTC().Format(time.RFC3339)+"\n")); err != nil {
			fmt.Fprintf(stderr, "ralph_loop: %v\n", err)
			return 1
		}
		fmt.Fprintf(stdout, "Paused: a running loop finishes its current agent call, then waits (status.json: paused).\nRun 'ralph_loop --resume' here to continue.\n")
		return 0
	}
	if !d.Exists(ralphdir.PauseFile) {
		fmt.Fprintln(stdout, "Not paused.")
		return 0
	}
	if err := d.Remove(ralphdir.PauseFile); err != nil {
		fmt.Fprintf(stderr, "ralph_loop: %v\n", err)
		return 1
	}
	fmt.Fprintln(stdout, "Resumed: the loop continues with its next iteration.")
	return 0
}
