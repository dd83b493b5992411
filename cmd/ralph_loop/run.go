package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"golang.org/x/term"

	"github.com/ralphloop/ralph_loop/config"
	"github.com/ralphloop/ralph_loop/engine"
	"github.com/ralphloop/ralph_loop/events"
	"github.com/ralphloop/ralph_loop/ralphdir"
	"github.com/ralphloop/ralph_loop/supervise"
)

// run is the whole program: arguments in, exit code out.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer, lookupEnv func(string) (string, bool)) int {
	if len(args) == 2 && args[0] == "--install-templates" {
		return installTemplates(args[1], stdout, stderr)
	}
	cwd, err := os.Getwd()
	if err != nil {
		fmt.Fprintf(stderr, "ralph_loop: cannot read the current directory: %v\n", err)
		return 1
	}
	cfg, warnings, err := config.Load(args, lookupEnv, cwd, ralphdir.ReadConfig)
	if err != nil {
		var ue *config.UsageError
		if errors.As(err, &ue) {
			fmt.Fprintln(stdout, ue.Error())
			if ue.ShowUsage {
				config.Usage(stdout)
			}
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
	case config.Version:
		fmt.Fprintf(stdout, "ralph_loop %s\n", version)
		return 0
	case config.Status:
		return showStatus(dir, stdout)
	case config.CircuitStatus:
		return circuitStatus(dir, cfg, stdout, stderr)
	case config.ResetCircuit:
		return resetCircuit(dir, stdout, stderr)
	case config.ResetSession:
		return resetSession(dir, stdout, stderr)
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
	return runLoop(cfg, warnings, dir, cwd, stdin, stdout, stderr)
}

// runLoop runs the engine with every sink attached.
func runLoop(cfg *config.Config, warnings []config.Warning, dir *ralphdir.Dir, cwd string, stdin io.Reader, stdout, stderr io.Writer) int {
	// The old flat layout (PROMPT.md at the root, no .ralph/) is checked
	// before anything under .ralph/ exists.
	if cfg.RalphDir == ".ralph" && !exists(dir.Root()) && exists(filepath.Join(cwd, "PROMPT.md")) {
		fmt.Fprintln(stderr, "ralph_loop: This project uses the old flat structure (PROMPT.md at the project root, no .ralph/).")
		fmt.Fprintln(stderr, "ralph_loop: Move the Ralph files into .ralph/ with 'ralph-migrate' (or 'bmalph init'), then run ralph_loop again.")
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

	errOut := events.NewAsyncWriter(stderr, 4096)
	outOut := events.NewAsyncWriter(stdout, 4096)
	// Flush what the console will take, but never hold the exit for it: a
	// pipe nobody drains (bmalph's dashboard) would otherwise cost a full
	// timeout per writer, and a stop must finish within 2 s.
	defer closeConsoles(500*time.Millisecond, outOut, errOut)

	now := time.Now
	start := now()
	bus := events.NewBus(now, events.ISOTime(start))
	bus.SetVerbose(cfg.Verbose)
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
	colour := isTerminal(stderr)
	bus.Add(events.NewConsole(errOut, colour), events.NewRalphLog(dir, sinkErr),
		events.NewStatus(dir, sinkErr), events.NewProgress(dir, sinkErr),
		events.NewMetrics(dir, sinkErr), events.NewStream(dir, eventsOut, sinkErr))
	// Warnings about the directory itself (quarantined files) go through
	// the log from now on.
	*dir = *ralphdir.New(dir.Root(), func(msg string) { bus.Warnf("%s", msg) })

	for _, w := range warnings {
		bus.Warnf("%s", w.String())
	}
	if cfg.RCFile != "" {
		bus.Infof("Loaded configuration from %s", cfg.RCFile)
	}

	// With --events - stdout carries only the event stream; the boxes and
	// the live output go to stderr instead.
	var console io.Writer = outOut
	if cfg.EventsFile == "-" {
		console = errOut
	}
	interactive := isTerminal(stdin)
	stopper := engine.NewStopper(context.Background(), interactive, now)
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)
	go func() {
		for sig := range sigs {
			if stopper.Signal(sig) == "stop" {
				fmt.Fprintf(errOut, "\nralph_loop: stopping (%s): stopping the agent...\n", engine.NewSignalError(sig).Name)
			}
		}
	}()

	res := engine.Run(settings(cfg, cwd), engine.Deps{
		Bus:         bus,
		Dir:         dir,
		Now:         now,
		Run:         supervise.Run,
		LookPath:    exec.LookPath,
		Env:         os.Environ(),
		Stdout:      console,
		Stopper:     stopper,
		Interactive: interactive,
		TTY:         isTerminal(stdout),
		Stdin:       stdin,
		Version:     version,
	})
	if res.Code != 0 && res.Message != "" {
		fmt.Fprintf(errOut, "ralph_loop: %s\n", res.Message)
	}
	return res.Code
}

// closeConsoles closes the writers at the same time, all within timeout.
func closeConsoles(timeout time.Duration, ws ...*events.AsyncWriter) {
	var wg sync.WaitGroup
	for _, w := range ws {
		wg.Go(func() { w.Close(timeout) })
	}
	wg.Wait()
}

// settings maps the resolved configuration onto the engine's.
func settings(c *config.Config, cwd string) engine.Settings {
	defTools := config.DefaultAllowedTools()
	return engine.Settings{
		ProjectDir:               cwd,
		PromptFile:               c.PromptFile,
		Driver:                   c.Driver,
		AgentArgv:                c.AgentArgv,
		PromptMode:               c.AgentPromptMode,
		OutputFormat:             c.OutputFormat,
		PermissionMode:           c.PermissionMode,
		AllowedTools:             c.AllowedTools,
		ToolsGiven:               c.Sources["ALLOWED_TOOLS"].Kind == config.SourceFlag || !sameList(c.AllowedTools, defTools),
		MinVersion:               c.ClaudeMinVersion,
		Live:                     c.Live,
		Verbose:                  c.Verbose,
		MaxCallsPerHour:          c.MaxCallsPerHour,
		Timeout:                  c.AgentTimeout(),
		WriteTimeout:             c.WriteTimeout(),
		Inactivity:               c.InactivityTimeout,
		Grace:                    time.Second,
		SessionContinuity:        c.SessionContinuity,
		SessionExpiry:            c.SessionExpiry(),
		PermissionDenialMode:     c.PermissionDenialMode,
		BreakerNoProgress:        c.CBNoProgressThreshold,
		BreakerSameError:         c.CBSameErrorThreshold,
		BreakerOutputDecline:     c.CBOutputDeclineThreshold,
		BreakerPermissionDenials: c.CBPermissionDenialThreshold,
		BreakerReadOnly:          c.CBReadOnlyTimeoutThreshold,
		BreakerCooldown:          c.CBCooldown(),
		BreakerAutoReset:         c.CBAutoReset,
		TestCommand:              c.TestCommand,
		QualityGates:             c.QualityGates,
		QualityGateMode:          c.QualityGateMode,
		QualityGateTimeout:       c.QualityGateTimeout(),
		QualityGateOnlyOnEnd:     c.QualityGateOnCompletionOnly,
		ReviewMode:               c.ReviewMode,
		ReviewInterval:           c.ReviewInterval,
		LoopDelay:                c.LoopDelay,
		MaxLoops:                 c.MaxLoops,
		IdleDelay:                c.IdleDelay,
		IdleBackoff:              c.IdleBackoff,
		IdleMaxDelay:             c.IdleMaxDelay,
		IdleMax:                  c.IdleMax,
		StallLimit:               c.StallLimit,
		DonePattern:              c.DonePattern,
		MaxCostUSD:               c.MaxCostUSD,
		MaxTokens:                c.MaxTokens,
		MaxConsecutiveFailures:   c.MaxConsecutiveFailures,
	}
}

func sameList(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
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
