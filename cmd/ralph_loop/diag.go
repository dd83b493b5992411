package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"time"

	"github.com/ralphloop/ralph_loop/breaker"
	"github.com/ralphloop/ralph_loop/internal/config"
	"github.com/ralphloop/ralph_loop/internal/console"
	"github.com/ralphloop/ralph_loop/internal/ralphdir"
	"github.com/ralphloop/ralph_loop/internal/store"
	"github.com/ralphloop/ralph_loop/session"
)

var circuitStatusCommand = &command{
	flag: &flagSpec{Flag: config.Flag{Long: "circuit-status", Group: config.GroupMain, Common: true, Help: "show the circuit breaker's state and exit"},
		kind: atOnceFlag},
	where: atProjectRoot,
	run: func(e *runEnv, _ *line) error {
		return circuitStatus(e.dir, e.cfg, e.reset, terminalWidth(e.stdout), e.safeOut, e.safeErr)
	},
}

var resetCircuitCommand = &command{
	flag: &flagSpec{Flag: config.Flag{Long: "reset-circuit", Group: config.GroupMain, Common: true, Help: "close the circuit breaker, reset the session, and exit"},
		kind: atOnceFlag},
	run: func(e *runEnv, _ *line) error { return resetCircuit(e.dir, e.colour(e.stdout), e.safeOut, e.safeErr) },
}

var resetSessionCommand = &command{
	flag: &flagSpec{Flag: config.Flag{Long: "reset-session", Group: config.GroupMain, Common: true, Help: "forget the agent session and exit"},
		kind: atOnceFlag},
	run: func(e *runEnv, _ *line) error { return resetSession(e.dir, e.colour(e.stdout), e.safeOut, e.safeErr) },
}

var pauseCommand = &command{
	flag: &flagSpec{Flag: config.Flag{Long: "pause", Doc: "LOOP-CONTROL.md", Group: config.GroupCommands, Help: "ask the running loop to pause, and exit"},
		kind: commandFlag},
	run: func(e *runEnv, _ *line) error { return pause(e.dir, true, e.safeOut) },
}

var resumeCommand = &command{
	flag: &flagSpec{Flag: config.Flag{Long: "resume", Group: config.GroupCommands, Help: "let a paused loop go on, and exit"},
		kind: commandFlag},
	run: func(e *runEnv, _ *line) error { return pause(e.dir, false, e.safeOut) },
}

// circuitStatus is --circuit-status: the breaker's state, why, and what to
// do next. It only reads: no state is created (the bash loop creates a
// CLOSED one), and a damaged state file is reported, shown as CLOSED and
// left where it is for the loop to move aside when it next starts. width
// is the terminal's (nil for none): its box is fitted to it.
func circuitStatus(d *ralphdir.Dir, c *config.Config, reset string, width func() int, stdout, stderr io.Writer) error {
	// A .ralph/ that is a link (or one the state cannot be read through)
	// is an error, not a damaged state shown as an invented CLOSED one.
	if _, err := d.Lstat(ralphdir.CircuitBreakerState); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	now := time.Now()
	kept, damages := store.Peek(d, now)
	s, damaged := kept.Breaker, damages[ralphdir.CircuitBreakerState]
	if damaged != nil {
		fmt.Fprintf(stderr, "ralph_loop: warning: %s is corrupt (%v); shown as CLOSED and left as it is (the loop moves it aside when it next starts)\n", d.Path(ralphdir.CircuitBreakerState), damaged)
	} else if !kept.HaveBreaker { // there is none
		// As the bash loop does, a missing state is written as the CLOSED
		// state it is shown as; only that, never under a running loop, and
		// never in place of a file (docs/COMPATIBILITY.md).
		if held, perr := d.LockHolder(); perr == nil && held == nil {
			if err := store.SaveBreaker(d, s); err != nil {
				fmt.Fprintf(stderr, "ralph_loop: warning: %v\n", err)
			}
		}
	}
	bc := c.Breaker
	bc.ResetCommand = reset
	text := strings.Join(breaker.Describe(s, now, bc), "\n") + "\n"
	if width != nil { // a terminal's
		text = console.FitBoxes(text, width()) // its box, as the loop's, fits a narrow terminal
	}
	_, err := io.WriteString(stdout, text)
	return err
}

func sessionStore(d *ralphdir.Dir, stderr io.Writer) *store.Store {
	return store.New(d, func(level, msg string) {
		fmt.Fprintf(stderr, "[%s] [%s] %s\n", time.Now().Format("2006-01-02 15:04:05"), level, msg)
	}, nil, false)
}

// lockForReset takes the project's lock for a reset, as a second loop
// would: a reset under a running loop would be overwritten by it (or undo
// what it is doing), so it is refused, naming the lock and the loop's pid.
func lockForReset(d *ralphdir.Dir, flag string) (*ralphdir.Lock, error) {
	lock, err := d.Lock()
	if err == nil {
		return lock, nil
	}
	var le *ralphdir.LockedError
	if errors.As(err, &le) {
		who, stop := "a ralph_loop", "stop it first"
		if le.PID > 0 {
			who = fmt.Sprintf("a ralph_loop (pid %d)", le.PID)
			stop = fmt.Sprintf("stop it first (Ctrl+C where it runs, or kill %d)", le.PID)
		}
		return nil, fmt.Errorf("%s refused: %s is running in this project (lock %s held); %s, then run %s again (--status, --circuit-status and --report work while it runs)", flag, who, le.Path, stop, flag)
	}
	return nil, err
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
func resetCircuit(d *ralphdir.Dir, colour bool, stdout, stderr io.Writer) error {
	if err := d.EnsureLayout(); err != nil {
		return err
	}
	lock, err := lockForReset(d, "--reset-circuit")
	if err != nil {
		return err
	}
	defer lock.Unlock()
	now := time.Now()
	if err := store.SaveBreaker(d, breaker.Reset("Manual reset via command line", now)); err != nil {
		return err
	}
	fmt.Fprintln(stdout, green(colour, "✅ Circuit breaker reset to CLOSED state"))
	return sessionStore(d, stderr).ResetSession(session.ReasonManualCircuitReset, now)
}

// resetSession is --reset-session (manual_reset_flag).
func resetSession(d *ralphdir.Dir, colour bool, stdout, stderr io.Writer) error {
	if err := d.EnsureLayout(); err != nil {
		return err
	}
	lock, err := lockForReset(d, "--reset-session")
	if err != nil {
		return err
	}
	defer lock.Unlock()
	if err := sessionStore(d, stderr).ResetSession(session.ReasonManualResetFlag, time.Now()); err != nil {
		return err
	}
	fmt.Fprintln(stdout, green(colour, "✅ Session state reset successfully"))
	return nil
}

// pause is --pause / --resume: a marker file the running loop (and the
// next start) looks at between agent calls.
func pause(d *ralphdir.Dir, on bool, stdout io.Writer) error {
	if on {
		if err := d.WriteFile(ralphdir.PauseFile, []byte(time.Now().UTC().Format(time.RFC3339)+"\n")); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "Paused: a running loop finishes its current agent call, then waits (status.json: paused).\nRun 'ralph_loop --resume' here to continue.\n")
		return nil
	}
	if _, err := d.Lstat(ralphdir.PauseFile); errors.Is(err, fs.ErrNotExist) {
		fmt.Fprintln(stdout, "Not paused.")
		return nil
	} else if err != nil {
		return err // a .ralph/ that is a link, say: whether it is paused is not known
	}
	if err := d.Remove(ralphdir.PauseFile); err != nil {
		return err
	}
	fmt.Fprintln(stdout, "Resumed: the loop continues with its next iteration.")
	return nil
}
