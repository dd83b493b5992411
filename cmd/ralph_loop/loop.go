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

	"github.com/ralphloop/ralph_loop/internal/config"
	"github.com/ralphloop/ralph_loop/internal/console"
	"github.com/ralphloop/ralph_loop/internal/engine"
	"github.com/ralphloop/ralph_loop/internal/events"
	"github.com/ralphloop/ralph_loop/internal/observe"
	"github.com/ralphloop/ralph_loop/internal/ralphdir"
	"github.com/ralphloop/ralph_loop/internal/safetext"
	"github.com/ralphloop/ralph_loop/internal/store"
	"github.com/ralphloop/ralph_loop/internal/supervise"
	"github.com/ralphloop/ralph_loop/internal/swarm"
)

// runLoop runs the engine with every sink attached.
func runLoop(cfg *config.Config, warnings []config.Warning, dir *ralphdir.Dir, cwd, reset string, colour bool, stdin io.Reader, stdout, stderr io.Writer, sig *signals) error {
	if err := precheck(cfg, dir, cwd, reset, colour, stdout, stderr); err != nil {
		return err
	}
	// A sandbox this machine cannot give is refused before anything runs
	// or is written.
	sb, err := newSandbox(cfg, dir.Root(), cwd, exec.LookPath)
	if err != nil {
		return err
	}
	defer sb.close()
	if err := sandboxedDashboard(cfg, sb); err != nil {
		return err
	}
	lock, ignoreAdded, err := prepare(dir, sig, stderr)
	if err != nil {
		return err
	}
	defer lock.Unlock()
	if err := sb.sweep(); err != nil {
		return err
	}

	// One writer owns the terminal: log lines, boxes, the live stream and
	// the countdown go through one ordered queue, so a redrawn line is
	// always ended before another line is printed, on either stream.
	// A console that cannot read escapes (before Windows 10) gets its
	// redrawn lines ended as a pipe's are.
	term := console.NewTerminal(stdout, stderr, isTerminal(stdout) && escapes(stdout), isTerminal(stderr) && escapes(stderr), 8192)
	errOut, outOut := term.Stderr(), term.Stdout()
	// Flush what the console will take, but never hold the exit for it: a
	// pipe nobody drains (bmalph's dashboard) would otherwise cost a full
	// timeout, and a stop must finish within 2 s.
	defer term.Close(500 * time.Millisecond)

	now := time.Now
	start := now()
	bus := observe.New(now, events.ISOTime(start))
	sinkErr := func(err error) { fmt.Fprintf(errOut, "ralph_loop: warning: %v\n", err) }
	// Warnings about the directory itself (quarantined files) go through
	// the log from now on: the run's sinks, store and engine get this
	// .ralph/ folder, not the one that warned on stderr.
	dir = ralphdir.New(dir.Root(), func(msg string) { bus.Log(events.Warn, "%s", msg) })
	var eventsOut io.Writer
	switch cfg.EventsFile {
	case "":
	case "-":
		eventsOut = outOut
	default:
		f, err := openEventsFile(cfg, cwd)
		if err != nil {
			return fmt.Errorf("--events %s: %w", cfg.EventsFile, err)
		}
		defer f.Close()
		eventsOut = f
	}
	// With --events - stdout carries only the event stream; the boxes and
	// the live output go to stderr instead.
	var boxOut, boxFile io.Writer = outOut, stdout
	if cfg.EventsFile == "-" {
		boxOut, boxFile = errOut, stderr
	}
	shown := console.Options{Colour: colour, TTY: isTerminal(stdout), Verbose: cfg.Verbose, Width: terminalWidth(boxFile), ResetCommand: reset}
	state := wire(bus, dir, boxOut, errOut, shown, eventsOut, sinkErr)
	notifier := wireNotify(cfg, bus, dir, cwd)
	dir.SetRotation(int64(cfg.LogMaxMB) << 20)
	state.SetLogKeep(cfg.LogKeep)

	for _, w := range warnings {
		bus.Log(events.Warn, "%s", w.String())
	}
	if cfg.RCFile != "" {
		bus.Log(events.Info, "Loaded configuration from %s", cfg.RCFile)
	}
	if sb != nil {
		for _, l := range sb.describe() {
			bus.Log(events.Info, "Sandbox: %s", l)
		}
	}

	keeper := state.Keeper()
	if cfg.Dashboard {
		stopServing, watched, err := startDashboard(cfg, dir, cwd, bus, keeper, sig, sb != nil && cfg.SandboxNetwork)
		if err != nil {
			return err
		}
		defer stopServing()
		keeper = watched
	}
	if ignoreAdded { // said once nothing can refuse the run any more
		bus.Log(events.Info, "%s", gitIgnoreLine(dir, cwd))
	}
	defer skipOnUSR1(sig)()

	interactive := isTerminal(stdin)
	sig.setOut(errOut)
	var calling atomic.Bool // an agent call is under way
	runAgent := func(ctx context.Context, c supervise.Command, o supervise.Options) supervise.Outcome {
		calling.Store(true)
		defer calling.Store(false)
		defer recordCall(dir, &o)()
		return sb.run(ctx, c, o)
	}

	res, ok := sig.engine(&calling, func() engine.Result {
		return engine.Run(settingsFor(cfg, reset), engine.Deps{
			Bus:         bus,
			Keeper:      keeper,
			Dir:         dir,
			State:       state,
			Logs:        state,
			Now:         now,
			Run:         runAgent,
			LookPath:    exec.LookPath,
			Env:         os.Environ(),
			Stopper:     sig.stopper,
			Interactive: interactive,
			Stdin:       stdin,
			Version:     programVersion(),
			Ticks:       shown.TTY,
			Sandbox:     sb.gateWrap(),
			Swarm:       swarm.FromEnv(os.LookupEnv),
		})
	})
	if !ok {
		// Stopped while the engine was blocked outside an agent call (a
		// read that never returns, a quality gate that ignores SIGTERM):
		// end whatever command it still runs, with the helpers it
		// started, say so and record the stop ourselves.
		supervise.KillAll()
		se := engine.Cause(sig.stopper.Context())
		bus.Note(events.Interrupted{Signal: se.Name, Blocked: true})
		stop := events.Stop{Kind: events.StopSignal, Signal: se.Name}
		bus.Stopped(events.Moment{Action: "interrupted", Status: "stopped"}, events.End{Reason: se.Name, ExitCode: se.Code, Stop: &stop})
		res = engine.Result{Code: se.Code, Stop: stop}
	}
	// The run's last events reach the notifiers before the exit, but a
	// hook that hangs holds it up for at most NOTIFY_TIMEOUT (a stop
	// signal's exit for at most signalDrain; a stop during the wait cuts
	// it to signalDrain, a second one to nothing).
	cut, stopCuts := drainCuts(sig)
	notifier.DrainCut(drainBound(cfg.NotifyTimeout, res.Stop), cut)
	stopCuts()
	// The run's closing line is the console's last: it goes through the
	// console before it closes, so it follows the last log line and cannot
	// block on a pipe nobody drains. The exit then carries only the code.
	if msg := console.StopLine(res.Stop); res.Code != 0 && msg != "" {
		fmt.Fprintf(errOut, "ralph_loop: %s\n", msg)
	}
	return exitStatus(res.Code)
}

// precheck stops a start that is bound to fail (the old flat layout, no
// .ralph/, no prompt, no repository, no commit, a repository git refuses)
// before anything is written: no .ralph/ folders, lock, log line or
// status.json. A failed start-up check is shown as the loop shows it.
func precheck(cfg *config.Config, dir *ralphdir.Dir, cwd, reset string, colour bool, stdout, stderr io.Writer) error {
	if err := checkLayout(cfg, dir, cwd); err != nil {
		return err
	}
	err := engine.Precheck(settingsFor(cfg, reset), dir, exec.LookPath)
	var se *engine.StartupError
	if errors.As(err, &se) {
		shown := console.Options{Colour: colour, TTY: isTerminal(stdout), Verbose: cfg.Verbose, Width: terminalWidth(stdout), ResetCommand: reset}
		console.New(stdout, stderr, shown).Said(time.Now(), se.Failed)
		recordStartupError(cfg, dir, stderr)
		return exitStatus(1) // shown; 1, as for every start-up failure
	}
	return err
}

// recordStartupError leaves what bmalph reads of a start that failed: a
// status.json that says stopped (bmalph shows the project as blocked), as
// the bash loop does. Only that, and the .ralph/.gitignore that keeps it out
// of the project's history first: no folder, lock or log. Nothing when
// there is no .ralph/ (a folder never set up) or it is another user's.
func recordStartupError(cfg *config.Config, dir *ralphdir.Dir, stderr io.Writer) {
	if st, err := os.Stat(dir.Root()); err != nil || !st.IsDir() || !ownedByMe(st) || dir.CheckFolders() != nil {
		return
	}
	created, err := dir.EnsureGitIgnore()
	if err != nil {
		return // never a state file git would carry
	}
	if created {
		fmt.Fprintln(stderr, "ralph_loop: "+safetext.Line(gitIgnoreLine(dir, cfg.ProjectDir)))
	}
	now := time.Now()
	m := events.Moment{TS: now, Action: "unexpected_exit", Status: "stopped", Snapshot: events.Snapshot{MaxCalls: cfg.MaxCallsPerHour}}
	if err := dir.WriteJSON(ralphdir.Status, store.StatusOf(m, "error", new(1))); err != nil {
		fmt.Fprintf(stderr, "ralph_loop: warning: %v\n", err)
	}
}

// prepare makes sure the loop may start here, once checkLayout and the
// start-up checks passed: the layout's folders and .gitignore (ignoreAdded:
// it was not there; the run logs that), the project's lock (the
// caller releases it), a writable folder, no stop yet; and the loop adopts
// the orphans of its agents' helpers.
func prepare(dir *ralphdir.Dir, sig *signals, stderr io.Writer) (lock *ralphdir.Lock, ignoreAdded bool, err error) {
	if err := dir.EnsureLayout(); err != nil {
		return nil, false, err
	}
	// The loop's own files stay out of the project's history (an agent
	// commits with `git add -A`); a .gitignore that is there is kept.
	ignoreAdded, err = dir.EnsureGitIgnore()
	if err != nil {
		fmt.Fprintf(stderr, "ralph_loop: warning: %v; the loop's own files may be committed with the project\n", err)
	}
	lock, err = dir.Lock()
	if err != nil {
		return nil, false, err
	}
	if se := sig.stopped(); se != nil {
		lock.Unlock()
		return nil, false, se
	}
	if err := dir.CheckWritable(); err != nil {
		lock.Unlock()
		return nil, false, err
	}
	if err := guardCalls(dir, stderr); err != nil {
		lock.Unlock()
		return nil, false, err
	}
	return lock, ignoreAdded, nil
}

// gitIgnoreLine says that the loop wrote .ralph/.gitignore, which a tree
// that was clean now shows as untracked, and how to commit it; the run
// logs it once nothing can refuse it any more, a start that failed prints it.
func gitIgnoreLine(dir *ralphdir.Dir, cwd string) string {
	p := dir.Path(ralphdir.GitIgnore)
	shown := p
	if r, err := filepath.Rel(cwd, p); err == nil && !strings.HasPrefix(r, "..") {
		shown = filepath.ToSlash(r)
	}
	return fmt.Sprintf("Added %s (the loop's own files stay out of git); it shows as untracked until you commit it: %s",
		shown, commitIgnoreHint(p, cwd))
}

// checkLayout makes sure there is a .ralph/ folder in the current layout.
func checkLayout(cfg *config.Config, dir *ralphdir.Dir, cwd string) error {
	// The old flat layout (PROMPT.md at the root, no .ralph/) is checked
	// before anything under .ralph/ exists.
	if cfg.RalphDir == ".ralph" && !exists(dir.Root()) && exists(filepath.Join(cwd, "PROMPT.md")) {
		return &exitError{code: 1, lines: []string{
			"ralph_loop: This project uses the old flat structure (PROMPT.md at the project root, no .ralph/).",
			"ralph_loop: Move the Ralph files into .ralph/ with 'ralph-migrate' (or 'bmalph init'), then run ralph_loop again.",
		}}
	}
	// A folder that was never set up: say how, and create nothing. A
	// --goal run needs no set-up: its prompt and plan are the goal.
	if !exists(dir.Root()) && cfg.Goal == "" {
		return fmt.Errorf("no %s here (%s); set it up with %s, then run ralph_loop again", cfg.RalphDir, cwd, config.SetupHint)
	}
	return nil
}

// openEventsFile opens EVENTS_FILE for appending. One the repository's
// .ralphrc names must be inside the project, reached through no link and
// not a link itself; one the person names (--events, the environment) is
// opened where it is.
func openEventsFile(cfg *config.Config, cwd string) (*os.File, error) {
	if !cfg.Sources["EVENTS_FILE"].FromRepository() {
		return os.OpenFile(cfg.EventsFile, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	}
	p := cfg.EventsFile
	if !filepath.IsAbs(p) {
		p = filepath.Join(cwd, p)
	}
	rel, err := filepath.Rel(cwd, p)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return nil, errors.New("is outside the project, and .ralphrc's EVENTS_FILE may not leave it; name a file inside the project, or pass the file with --events")
	}
	return ralphdir.OpenAppendBeneath(cwd, rel)
}
