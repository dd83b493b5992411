package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/term"

	"github.com/ralphloop/ralph_loop/internal/config"
	"github.com/ralphloop/ralph_loop/internal/ralphdir"
	"github.com/ralphloop/ralph_loop/internal/safetext"
)

// run is the whole program: arguments in, exit code out. Every command
// returns an error, and exitCode alone shows it and picks the exit code.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer, lookupEnv func(string) (string, bool)) int {
	err := dispatch(args, stdin, stdout, stderr, lookupEnv)
	safeOut, safeErr := safetext.NewWriter(stdout), safetext.NewWriter(stderr)
	defer safeOut.Flush()
	defer safeErr.Flush()
	return exitCode(err, safeOut, safeErr)
}

// dispatch reads the command line and runs the command it names: the
// loop, or one of the commands that show or change its state.
func dispatch(args []string, stdin io.Reader, stdout, stderr io.Writer, lookupEnv func(string) (string, bool)) error {
	if len(args) > 0 && args[0] == monitorPaneFlag {
		return monitorPane(args[1:], stdin, stdout, stderr)
	}
	// What the commands print quotes the repository's files and folder
	// names: it reaches the terminal made safe (colours pass, no other
	// escape sequence). The loop's console makes its own writes safe.
	safeOut, safeErr := safetext.NewWriter(stdout), safetext.NewWriter(stderr)
	defer safeOut.Flush()
	defer safeErr.Flush()
	// Signals are caught from here on, so that a stop during start-up
	// (reading the configuration, taking the lock, the start-up checks)
	// ends the run with the signal's exit code, and SIGQUIT never dumps
	// goroutines.
	sig := catchSignals(isTerminal(stdin), stderr)
	defer sig.release()
	cwd, err := os.Getwd()
	if err != nil {
		return fmt.Errorf("cannot read the current directory: %w", err)
	}
	// --install-templates [DIR] is the older name of --init (install.sh
	// passes the directory).
	if len(args) >= 1 && args[0] == "--install-templates" {
		switch len(args) {
		case 1:
			args = []string{"--init"}
		case 2:
			sig.release()
			return installTemplates(args[1], safeOut)
		}
	}
	c, l, err := readCommand(args, lookupEnv)
	if err != nil {
		sig.release()
		return err
	}
	e := &runEnv{args: args, reset: resetCommand(lookupEnv), lookupEnv: lookupEnv, stdin: stdin,
		stdout: stdout, stderr: stderr, safeOut: safeOut, safeErr: safeErr, colour: colourOn(lookupEnv), sig: sig}
	if c.noConfig {
		sig.release()
		return c.run(e, l)
	}
	// From a subfolder of a project, its root (or a one-line refusal).
	if cwd, err = workDir(c, lookupEnv, cwd, stderr); err != nil {
		return err
	}
	if c.noAgent {
		l.settings.RunsNoAgent()
	}
	if e.cfg, e.warnings, err = loadConfig(l, c.loop, lookupEnv, cwd, sig); err != nil {
		return err
	}
	if err := e.cfg.GoalError(); err != nil {
		return err
	}
	ralphPath := e.cfg.RalphDir
	if !filepath.IsAbs(ralphPath) {
		ralphPath = filepath.Join(cwd, ralphPath)
	}
	e.dir = ralphdir.New(ralphPath, func(msg string) { fmt.Fprintf(safeErr, "ralph_loop: warning: %s\n", msg) })
	e.cwd = cwd
	return c.run(e, l)
}

// resetCommand is the command the hints name to close an OPEN circuit:
// the one that works when the loop was started through bmalph's shim
// (.ralph/ralph_loop.sh sets RALPH_SHIM), else "" (ralph_loop's own).
func resetCommand(lookupEnv func(string) (string, bool)) string {
	if shim, ok := lookupEnv("RALPH_SHIM"); ok && strings.TrimSpace(shim) != "" {
		return strings.TrimSpace(shim) + " --reset-circuit"
	}
	return ""
}

// settingsFor is the engine's settings: cfg itself, with the reset
// command its hints name.
func settingsFor(cfg *config.Config, reset string) config.Config {
	s := *cfg
	s.Breaker.ResetCommand = reset
	return s
}

// colourOn reports whether a writer gets colours: a terminal that reads
// escape sequences, unless NO_COLOR is set.
func colourOn(lookupEnv func(string) (string, bool)) func(io.Writer) bool {
	off := noColour(lookupEnv)
	return func(w io.Writer) bool { return !off && isTerminal(w) && escapes(w) }
}

// noColour reports whether NO_COLOR asks for no colour (set, not empty).
func noColour(lookupEnv func(string) (string, bool)) bool {
	v, ok := lookupEnv("NO_COLOR")
	return ok && v != ""
}

// loadConfig resolves the configuration, giving up as soon as a stop
// arrives while it blocks (a .ralphrc on a FIFO). loop: the command runs
// the loop (its settings are checked strictly, and it keeps the signals
// caught).
func loadConfig(l *line, loop bool, lookupEnv func(string) (string, bool), cwd string, sig *signals) (*config.Config, []config.Warning, error) {
	var (
		cfg      *config.Config
		warnings []config.Warning
		err      error
	)
	if !sig.unlessStopped(func() { cfg, warnings, err = config.Load(&l.settings, loop, lookupEnv, cwd, ralphdir.ReadConfig) }) {
		return nil, nil, sig.stopError()
	}
	if cfg == nil || !loop {
		sig.release()
		if se := sig.stopped(); se != nil {
			return nil, nil, se
		}
	}
	return cfg, warnings, err
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// isTerminal reports whether v is a terminal file, or a writer to one.
func isTerminal(v any) bool {
	if u, ok := v.(interface{ Unwrap() io.Writer }); ok {
		v = u.Unwrap()
	}
	f, ok := v.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
