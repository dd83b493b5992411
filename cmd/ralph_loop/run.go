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

// dispatch reads the configuration and runs the command it names: the
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
	reset := resetCommand(lookupEnv)
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
	// From a subfolder of a project, its root (or a one-line refusal).
	if cwd, err = workDir(args, lookupEnv, cwd, stderr); err != nil {
		return err
	}
	cfg, warnings, err := loadConfig(args, lookupEnv, cwd, sig)
	if err != nil {
		return err
	}
	if err := cfg.GoalError(); err != nil {
		return err
	}
	ralphPath := cfg.RalphDir
	if !filepath.IsAbs(ralphPath) {
		ralphPath = filepath.Join(cwd, ralphPath)
	}
	warn := func(msg string) { fmt.Fprintf(safeErr, "ralph_loop: warning: %s\n", msg) }
	dir := ralphdir.New(ralphPath, warn)
	colour := colourOn(lookupEnv)
	if cfg.Command == "doctor" {
		return doctor(cfg, warnings, dir, cwd, lookupEnv, safeOut)
	}
	if cfg.Command == "dry-run" {
		return dryRun(cfg, dir, cwd, reset, colour(stderr), safeOut, safeErr, sig)
	}
	if cfg.Command == "serve" {
		// A value the dashboard ignores (a SERVE_TOKEN too short, say)
		// is said before it serves without it.
		for _, w := range warnings {
			warn(w.String())
		}
	}
	if cfg.Command != "" {
		return command(cfg, args, dir, reset, colour(stdout), safeOut, safeErr)
	}
	if cfg.SwarmWorkers > 0 {
		return runSwarm(cfg, args, cwd, safeErr, stderr, lookupEnv, sig)
	}
	return runLoop(cfg, warnings, dir, cwd, reset, colour(stderr), stdin, stdout, stderr, sig)
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
	noColour := false
	if v, ok := lookupEnv("NO_COLOR"); ok && v != "" {
		noColour = true
	}
	return func(w io.Writer) bool { return !noColour && isTerminal(w) && escapes(w) }
}

// loadConfig resolves the configuration, giving up as soon as a stop
// arrives while it blocks (a .ralphrc on a FIFO). Only the loop keeps the
// signals caught; the other commands get their default behaviour back.
func loadConfig(args []string, lookupEnv func(string) (string, bool), cwd string, sig *signals) (*config.Config, []config.Warning, error) {
	var (
		cfg      *config.Config
		warnings []config.Warning
		err      error
	)
	if !sig.unlessStopped(func() { cfg, warnings, err = config.Load(args, lookupEnv, cwd, ralphdir.ReadConfig) }) {
		return nil, nil, sig.stopError()
	}
	if cfg == nil || cfg.Command != "" {
		sig.release()
		if se := sig.stopped(); se != nil {
			return nil, nil, se
		}
	}
	return cfg, warnings, err
}

// command runs one of the commands that show or change the loop's state
// instead of running it.
func command(cfg *config.Config, args []string, dir *ralphdir.Dir, reset string, colour bool, stdout, stderr io.Writer) error {
	switch cfg.Command {
	case "help", "help-all":
		config.Usage(stdout, cfg.Command == "help-all")
	case "init":
		return installTemplates(dir.Root(), stdout)
	case "version":
		fmt.Fprintf(stdout, "ralph_loop %s\n", programVersion())
	case "status":
		defer showSwarmStatus(dir, cfg, stdout)
		return showStatus(dir, cfg, stdout)
	case "circuit-status":
		return circuitStatus(dir, cfg, reset, stdout, stderr)
	case "reset-circuit":
		return resetCircuit(dir, colour, stdout, stderr)
	case "reset-session":
		return resetSession(dir, colour, stdout, stderr)
	case "pause":
		return pause(dir, true, stdout)
	case "resume":
		return pause(dir, false, stdout)
	case "analyze":
		return analyze(cfg, stdout, stderr)
	case "report":
		return showReport(dir, cfg, stdout, stderr)
	case "clean":
		return clean(dir, cfg, stdout)
	case "monitor":
		return monitor(cfg, args, dir, reset, stderr)
	case "serve":
		return serve(cfg, dir, cfg.ProjectDir, stdout)
	}
	return nil
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
