package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"golang.org/x/term"

	"github.com/ralphloop/ralph_loop/breaker"
	"github.com/ralphloop/ralph_loop/config"
	"github.com/ralphloop/ralph_loop/console"
	"github.com/ralphloop/ralph_loop/engine"
	"github.com/ralphloop/ralph_loop/events"
	"github.com/ralphloop/ralph_loop/ralphdir"
	"github.com/ralphloop/ralph_loop/supervise"
)

// run is the whole program: arguments in, exit code out.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer, lookupEnv func(string) (string, bool)) int {
	// Started through bmalph's shim (.ralph/ralph_loop.sh sets RALPH_SHIM):
	// hints name the command that works there.
	if shim, ok := lookupEnv("RALPH_SHIM"); ok && strings.TrimSpace(shim) != "" {
		breaker.ResetCommand = strings.TrimSpace(shim) + " --reset-circuit"
	}
	// Signals are caught from here on, so that a stop during start-up
	// (reading the configuration, taking the lock, the start-up checks)
	// ends the run with the signal's exit code, and SIGQUIT never dumps
	// goroutines.
	sig := catchSignals(isTerminal(stdin), stderr)
	defer sig.release()
	noColour := false
	if v, ok := lookupEnv("NO_COLOR"); ok && v != "" {
		noColour = true
	}
	colourOn := func(w io.Writer) bool { return !noColour && isTerminal(w) }
	cwd, err := os.Getwd()
	if err != nil {
		fmt.Fprintf(stderr, "ralph_loop: cannot read the current directory: %v\n", err)
		return 1
	}
	// --install-templates [DIR] is the older name of --init (install.sh
	// passes the directory).
	if len(args) >= 1 && args[0] == "--install-templates" {
		switch len(args) {
		case 1:
			args = []string{"--init"}
		case 2:
			sig.release()
			return installTemplates(args[1], stdout, stderr)
		}
	}
	var cfg *config.Config
	var warnings []config.Warning
	if !sig.unlessStopped(func() { cfg, warnings, err = config.Load(args, lookupEnv, cwd, ralphdir.ReadConfig) }) {
		return sig.exitCode()
	}
	if cfg == nil || cfg.Action != config.Run {
		sig.release() // the other actions keep the default signal behaviour
		if code, stopped := sig.stopped(); stopped {
			return code
		}
	}
	if err != nil {
		var ue *config.UsageError
		if errors.As(err, &ue) {
			if ue.Unknown {
				// One line where errors go, not under a screenful of help.
				fmt.Fprintln(stderr, ue.Error())
				if !isTerminal(stdout) && ue.Key != "" {
					// A script reading stdout gets the bash loop's short form
					// (docs/COMPATIBILITY.md); a person at a terminal sees
					// only the line above.
					fmt.Fprintf(stdout, "Unknown option: %s\nUsage: ralph_loop [OPTIONS] (ralph_loop --help lists all)\n", ue.ShownKey())
				}
				return ue.ExitCode()
			}
			fmt.Fprintln(stdout, ue.Error())
			return ue.ExitCode()
		}
		fmt.Fprintf(stderr, "ralph_loop: %v\n", err)
		return 1
	}
	ralphPath := cfg.RalphDir
	if !filepath.IsAbs(ralphPath) {
		ralphPath = filepath.Join(cwd, ralphPath)
	}
	warn := func(msg string) { fmt.Fprintf(stderr, "ralph_loop: warning: %s\n", msg) }
	dir := ralphdir.New(ralphPath, warn)

	switch cfg.Action {
	case config.Help:
		config.Usage(stdout)
		return 0
	case config.Init:
		return installTemplates(dir.Root(), stdout, stderr)
	case config.Version:
		fmt.Fprintf(stdout, "ralph_loop %s\n", version)
		return 0
	case config.Status:
		return showStatus(dir, stdout)
	case config.CircuitStatus:
		return circuitStatus(dir, cfg, stdout, stderr)
	case config.ResetCircuit:
		return resetCircuit(dir, colourOn(stdout), stdout, stderr)
	case config.ResetSession:
		return resetSession(dir, colourOn(stdout), stdout, stderr)
	case config.Pause:
		return pause(dir, true, stdout, stderr)
	case config.Resume:
		return pause(dir, false, stdout, stderr)
	case config.Analyze:
		return analyze(cfg, stdout, stderr)
	case config.Report:
		return showReport(dir, cfg, stdout, stderr)
	case config.Monitor:
		return monitor(cfg, args, stdout, stderr)
	}
	return runLoop(cfg, warnings, dir, cwd, colourOn(stderr), stdin, stdout, stderr, sig)
}

// runLoop runs the engine with every sink attached.
func runLoop(cfg *config.Config, warnings []config.Warning, dir *ralphdir.Dir, cwd string, colour bool, stdin io.Reader, stdout, stderr io.Writer, sig *signals) int {
	// The old flat layout (PROMPT.md at the root, no .ralph/) is checked
	// before anything under .ralph/ exists.
	if cfg.RalphDir == ".ralph" && !exists(dir.Root()) && exists(filepath.Join(cwd, "PROMPT.md")) {
		fmt.Fprintln(stderr, "ralph_loop: This project uses the old flat structure (PROMPT.md at the project root, no .ralph/).")
		fmt.Fprintln(stderr, "ralph_loop: Move the Ralph files into .ralph/ with 'ralph-migrate' (or 'bmalph init'), then run ralph_loop again.")
		return 1
	}
	// A folder that was never set up: say how, and create nothing.
	if !exists(dir.Root()) {
		fmt.Fprintf(stderr, "ralph_loop: no %s here (%s); set it up with 'ralph_loop --init', 'bmalph init' or 'install.sh --project .', then run ralph_loop again\n", cfg.RalphDir, cwd)
		return 1
	}
	if err := dir.EnsureLayout(); err != nil {
		fmt.Fprintf(stderr, "ralph_loop: %v\n", err)
		return 1
	}
	lock, err := dir.Lock()
	if err != nil {
		fmt.Fprintf(stderr, "ralph_loop: %v\n", err)
		return 1
	}
	defer lock.Unlock()
	if code, stopped := sig.stopped(); stopped {
		return code
	}
	if err := dir.CheckWritable(); err != nil {
		fmt.Fprintf(stderr, "ralph_loop: %v\n", err)
		return 1
	}
	// An agent's helper that leaves its process group (setsid) is
	// re-parented to us, to be stopped and reaped when the call ends.
	if err := supervise.AdoptOrphans(); err != nil {
		fmt.Fprintf(stderr, "ralph_loop: warning: cannot become a child subreaper (%v); an agent's helper that calls setsid may outlive its call\n", err)
	}

	// One writer owns the terminal: log lines, boxes, the live stream and
	// the countdown go through one ordered queue, so a redrawn line is
	// always ended before another line is printed, on either stream.
	term := console.NewTerminal(stdout, stderr, isTerminal(stdout), isTerminal(stderr), 8192)
	errOut, outOut := term.Stderr(), term.Stdout()
	// Flush what the console will take, but never hold the exit for it: a
	// pipe nobody drains (bmalph's dashboard) would otherwise cost a full
	// timeout, and a stop must finish within 2 s.
	defer term.Close(500 * time.Millisecond)

	now := time.Now
	start := now()
	bus := events.NewBus(now, events.ISOTime(start))
	sinkErr := func(err error) { fmt.Fprintf(errOut, "ralph_loop: warning: %v\n", err) }
	var eventsOut io.Writer
	switch cfg.EventsFile {
	case "":
	case "-":
		eventsOut = outOut
	default:
		f, err := os.OpenFile(cfg.EventsFile, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			fmt.Fprintf(stderr, "ralph_loop: --events %s: %v\n", cfg.EventsFile, err)
			return 1
		}
		defer f.Close()
		eventsOut = f
	}
	// With --events - stdout carries only the event stream; the boxes and
	// the live output go to stderr instead.
	var boxOut io.Writer = outOut
	if cfg.EventsFile == "-" {
		boxOut = errOut
	}
	shown := console.Options{Colour: colour, TTY: isTerminal(stdout), Verbose: cfg.Verbose}
	state := wire(bus, dir, boxOut, errOut, shown, eventsOut, sinkErr)
	// Warnings about the directory itself (quarantined files) go through
	// the log from now on.
	*dir = *ralphdir.New(dir.Root(), func(msg string) { bus.Warnf("%s", msg) })

	for _, w := range warnings {
		bus.Warnf("%s", w.String())
	}
	if cfg.RCFile != "" {
		bus.Infof("Loaded configuration from %s", cfg.RCFile)
	}

	interactive := isTerminal(stdin)
	sig.setOut(errOut)
	var calling atomic.Bool // an agent call is under way
	runAgent := func(ctx context.Context, c supervise.Command, o supervise.Options) supervise.Outcome {
		calling.Store(true)
		defer calling.Store(false)
		return supervise.Run(ctx, c, o)
	}

	res, ok := sig.engine(&calling, func() engine.Result {
		return engine.Run(engine.SettingsFrom(cfg, cwd), engine.Deps{
			Bus:         bus,
			Dir:         dir,
			Store:       state,
			Now:         now,
			Run:         runAgent,
			LookPath:    exec.LookPath,
			Env:         os.Environ(),
			Stopper:     sig.stopper,
			Interactive: interactive,
			Stdin:       stdin,
			Version:     version,
		})
	})
	if !ok {
		// Stopped while the engine was blocked outside an agent call (a
		// read that never returns): say so and record the stop ourselves.
		se := engine.Cause(sig.stopper.Context())
		bus.Note(events.Interrupted{Signal: se.Name, Blocked: true})
		bus.Emit(events.Event{Type: events.RunFinished, Action: "interrupted", Status: "stopped", Reason: se.Name, ExitCode: events.IntPtr(se.Code), Message: "stopped by " + se.Name})
		res = engine.Result{Code: se.Code, Message: "stopped by " + se.Name}
	}
	if res.Code != 0 && res.Message != "" {
		fmt.Fprintf(errOut, "ralph_loop: %s\n", res.Message)
	}
	return res.Code
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// isTerminal reports whether v is a terminal file.
func isTerminal(v any) bool {
	f, ok := v.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
