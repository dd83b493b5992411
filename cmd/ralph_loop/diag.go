package main

import (
	"bytes"
	"encoding/json"
	"errors"
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
	for _, line := range breaker.Describe(s, now, c.Breaker()) {
		fmt.Fprintln(stdout, line)
	}
	return 0
}

func sessionStore(d *ralphdir.Dir, stderr io.Writer) *session.Store {
	return session.New(d, func(level, msg string) {
		fmt.Fprintf(stderr, "[%s] [%s] %s\n", time.Now().Format("2006-01-02 15:04:05"), level, msg)
	})
}

// lockForReset takes the project's lock for a reset, as a second loop
// would: a reset under a running loop would be overwritten by it (or undo
// what it is doing), so it is refused, naming the lock and the loop's pid.
func lockForReset(d *ralphdir.Dir, flag string, stderr io.Writer) (*ralphdir.Lock, bool) {
	lock, err := d.Lock()
	if err == nil {
		return lock, true
	}
	var le *ralphdir.LockedError
	if errors.As(err, &le) {
		who, stop := "a ralph_loop", "stop it first"
		if le.PID > 0 {
			who = fmt.Sprintf("a ralph_loop (pid %d)", le.PID)
			stop = fmt.Sprintf("stop it first (Ctrl+C where it runs, or kill %d)", le.PID)
		}
		fmt.Fprintf(stderr, "ralph_loop: %s refused: %s is running in this project (lock %s held); %s, then run %s again (--status, --circuit-status and --report work while it runs)\n", flag, who, le.Path, stop, flag)
		return nil, false
	}
	fmt.Fprintf(stderr, "ralph_loop: %v\n", err)
	return nil, false
}

// green colours a confirmation on a terminal (not with NO_COLOR).
func green(colour bool, s string) string {
	if !colour {
		return s
	}
	return "\033[0;32m" + s + "\033[0m"
}

// resetCircuit is --reset-circuit: a fresh CLOSED breaker and a session
// reset (manual_circuit_reset).
func resetCircuit(d *ralphdir.Dir, colour bool, stdout, stderr io.Writer) int {
	if err := d.EnsureLayout(); err != nil {
		fmt.Fprintf(stderr, "ralph_loop: %v\n", err)
		return 1
	}
	lock, ok := lockForReset(d, "--reset-circuit", stderr)
	if !ok {
		return 1
	}
	defer lock.Unlock()
	now := time.Now()
	if err := breaker.Save(d, breaker.Reset("Manual reset via command line", now)); err != nil {
		fmt.Fprintf(stderr, "ralph_loop: %v\n", err)
		return 1
	}
	fmt.Fprintln(stdout, green(colour, "✅ Circuit breaker reset to CLOSED state"))
	if err := sessionStore(d, stderr).Reset(session.ReasonManualCircuitReset, 0, now); err != nil {
		fmt.Fprintf(stderr, "ralph_loop: %v\n", err)
		return 1
	}
	return 0
}

// resetSession is --reset-session (manual_reset_flag).
func resetSession(d *ralphdir.Dir, colour bool, stdout, stderr io.Writer) int {
	if err := d.EnsureLayout(); err != nil {
		fmt.Fprintf(stderr, "ralph_loop: %v\n", err)
		return 1
	}
	lock, ok := lockForReset(d, "--reset-session", stderr)
	if !ok {
		return 1
	}
	defer lock.Unlock()
	if err := sessionStore(d, stderr).Reset(session.ReasonManualResetFlag, 0, time.Now()); err != nil {
		fmt.Fprintf(stderr, "ralph_loop: %v\n", err)
		return 1
	}
	fmt.Fprintln(stdout, green(colour, "✅ Session state reset successfully"))
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
