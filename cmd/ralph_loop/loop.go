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
	"time"

	"github.com/ralphloop/ralph_loop/internal/agentcall"
	"github.com/ralphloop/ralph_loop/internal/config"
	"github.com/ralphloop/ralph_loop/internal/console"
	"github.com/ralphloop/ralph_loop/internal/engine"
	"github.com/ralphloop/ralph_loop/internal/events"
	"github.com/ralphloop/ralph_loop/internal/notify"
	"github.com/ralphloop/ralph_loop/internal/observe"
	"github.com/ralphloop/ralph_loop/internal/ralphdir"
	"github.com/ralphloop/ralph_loop/internal/safetext"
	"github.com/ralphloop/ralph_loop/internal/store"
	"github.com/ralphloop/ralph_loop/internal/supervise"
	"github.com/ralphloop/ralph_loop/internal/swarm"
	"github.com/ralphloop/ralph_loop/internal/tasks"
)

// loopCommand is the loop itself: what the command line asks for when it
// names no command (with --swarm N, N loops at once).
var loopCommand = &command{
	options: []*flagSpec{dashboardFlag},
	loop:    true,
	run: func(e *runEnv, l *line) error {
		o := loopOptionsOf(l)
		if e.cfg.SwarmWorkers > 0 {
			return runSwarm(e.cfg, o, e.args, e.cwd, e.safeErr, e.stderr, e.lookupEnv, e.sig)
		}
		return runLoop(e.cfg, o, e.warnings, e.dir, e.cwd, e.reset, e.colour(e.stderr), e.stdin, e.stdout, e.stderr, e.sig)
	},
}

// loopOptions are the loop's: serve its dashboard while it runs
// (--dashboard [ADDR]; the address is the SERVE_ADDR setting).
type loopOptions struct {
	dashboard bool
}

func loopOptionsOf(l *line) loopOptions { return loopOptions{dashboard: l.has("dashboard")} }

// dashboardFlag is --dashboard [ADDR].
var dashboardFlag = &flagSpec{
	Flag: config.Flag{Long: "dashboard", Doc: "DASHBOARD.md", Arg: "ADDR", Optional: true, Group: config.GroupWeb, Common: true,
		Help: "run the loop and serve its dashboard on ADDR (default: SERVE_ADDR, 127.0.0.1:8765)"},
	setting: "SERVE_ADDR",
	refused: func(with string) error {
		return flagError("--dashboard", fmt.Sprintf("--dashboard runs the loop and cannot be used with %s; use --serve to watch a loop without running it", with))
	},
}

// refusesLive is the words of a command (with: its flag) that runs no
// call and refuses --live.
func refusesLive(with string) func(name string) error {
	return func(name string) error {
		if name != liveName {
			return nil
		}
		return flagError("--live", fmt.Sprintf("--live does not apply with %s (it shows a running call's output); drop --live", with))
	}
}

// liveName is --live's: a setting of the loop (config.Flags).
const liveName = "live"

// runLoop runs the loop: checked and locked (beginLoop), its surfaces
// wired (wireLoop), the engine run to its end (loopRun.engine), and the
// end said (loopRun.end).
func runLoop(cfg *config.Config, o loopOptions, warnings []config.Warning, dir *ralphdir.Dir, cwd, reset string, colour bool, stdin io.Reader, stdout, stderr io.Writer, sig *signals) error {
	repo, setGitWarn := runRepo(settingsFor(cfg, reset).ProjectDir, dir.Root())
	sb, lock, ignoreChange, err := beginLoop(cfg, o, dir, repo, cwd, reset, colour, stdout, stderr, sig)
	if err != nil {
		return err
	}
	defer sb.close()
	defer lock.Unlock()
	r, err := wireLoop(cfg, o, warnings, sb, dir, cwd, colour, stdout, stderr, sig)
	if err != nil {
		return err
	}
	defer r.close()
	setGitWarn(r.gitWarn)
	r.repo = repo
	if ignoreChange != ralphdir.IgnoreKept { // said once nothing can refuse the run any more
		r.bus.Log(events.Info, "%s", gitIgnoreLine(r.dir, cwd, ignoreChange))
	}
	res := r.engine(settingsFor(cfg, reset), trackerOptions(cfg, r.dir, cwd), sb, stdin, sig)
	return r.end(cfg, res, sig)
}

// beginLoop checks what would stop the loop at once, before anything is
// written (precheck; a sandbox this machine cannot give, or a dashboard
// it would expose), then takes the project's lock (ignoreChange: it wrote
// .ralph/.gitignore, which the run says) and sweeps what a sandbox left;
// the caller closes the sandbox and unlocks the lock.
func beginLoop(cfg *config.Config, o loopOptions, dir *ralphdir.Dir, repo engine.Repo, cwd, reset string, colour bool, stdout, stderr io.Writer, sig *signals) (sb *agentSandbox, lock *ralphdir.Lock, ignoreChange ralphdir.IgnoreChange, err error) {
	if err := precheck(cfg, dir, repo, cwd, reset, colour, stdout, stderr); err != nil {
		return nil, nil, ralphdir.IgnoreKept, err
	}
	sb, err = newSandbox(cfg, dir.Root(), cwd, exec.LookPath)
	if err != nil {
		return nil, nil, ralphdir.IgnoreKept, err
	}
	defer func() {
		if err != nil {
			sb.close()
		}
	}()
	if err = sandboxedDashboard(cfg, o, sb); err != nil {
		return nil, nil, ralphdir.IgnoreKept, err
	}
	if lock, ignoreChange, err = prepare(dir, sig, stderr); err != nil {
		return nil, nil, ralphdir.IgnoreKept, err
	}
	if err = sb.sweep(); err != nil {
		lock.Unlock()
		return nil, nil, ralphdir.IgnoreKept, err
	}
	return sb, lock, ignoreChange, nil
}

// loopRun is a loop wired to its surfaces: what its engine reports to and
// saves through, and what its end closes.
type loopRun struct {
	bus      *observe.Fan
	dir      *ralphdir.Dir // the run's: it warns through the log
	state    *store.Store
	keeper   engine.Keeper // the store, or the dashboard's view around it
	gov      engine.Quota  // the usage governor, nil when off
	notifier *notify.Notifier
	shown    console.Options
	errOut   io.Writer   // the terminal's stderr
	repo     engine.Repo // the run's repository (runRepo)
	closers  []func()    // closed last first
}

// wireLoop wires a loop's surfaces: one terminal for its output, the
// console and ralph.log, the state files, the event log (--events), the
// notifiers, the usage governor and, with --dashboard, the web dashboard;
// and says the configuration's warnings.
func wireLoop(cfg *config.Config, o loopOptions, warnings []config.Warning, sb *agentSandbox, dir *ralphdir.Dir, cwd string, colour bool, stdout, stderr io.Writer, sig *signals) (r *loopRun, err error) {
	r = &loopRun{}
	defer func() {
		if err != nil {
			r.close()
		}
	}()
	// One writer owns the terminal: log lines, boxes, the live stream and
	// the countdown go through one ordered queue, so a redrawn line is
	// always ended before another line is printed, on either stream.
	// A console that cannot read escapes (before Windows 10) gets its
	// redrawn lines ended as a pipe's are.
	term := console.NewTerminal(stdout, stderr, isTerminal(stdout) && escapes(stdout), isTerminal(stderr) && escapes(stderr), 8192)
	r.errOut = term.Stderr()
	outOut := term.Stdout()
	// Flush what the console will take, but never hold the exit for it: a
	// pipe nobody drains (bmalph's dashboard) would otherwise cost a full
	// timeout, and a stop must finish within 2 s.
	r.closers = append(r.closers, func() { term.Close(500 * time.Millisecond) })

	start := time.Now()
	r.bus = observe.New(time.Now, events.ISOTime(start))
	sinkErr := func(err error) { fmt.Fprintf(r.errOut, "ralph_loop: warning: %v\n", err) }
	// Warnings about the directory itself (quarantined files) go through
	// the log from now on: the run's sinks, store and engine get this
	// .ralph/ folder, not the one that warned on stderr.
	r.dir = ralphdir.New(dir.Root(), func(msg string) { r.bus.Log(events.Warn, "%s", msg) })
	var eventsOut io.Writer
	switch cfg.EventsFile {
	case "":
	case "-":
		eventsOut = outOut
	default:
		f, err := openEventsFile(cfg, cwd)
		if err != nil {
			return r, fmt.Errorf("--events %s: %w", cfg.EventsFile, err)
		}
		r.closers = append(r.closers, func() { f.Close() })
		eventsOut = f
	}
	// With --events - stdout carries only the event stream; the boxes and
	// the live output go to stderr instead.
	var boxOut, boxFile io.Writer = outOut, stdout
	if cfg.EventsFile == "-" {
		boxOut, boxFile = r.errOut, stderr
	}
	r.shown = console.Options{Colour: colour, TTY: isTerminal(stdout), NoColour: noColour(os.LookupEnv), Verbose: cfg.Verbose, Width: terminalWidth(boxFile)}
	r.state = wire(r.bus, r.dir, boxOut, r.errOut, r.shown, eventsOut, sinkErr)
	r.notifier = wireNotify(cfg, r.bus, r.dir, cwd)
	r.dir.SetRotation(int64(cfg.LogMaxMB) << 20)
	r.state.SetLogKeep(cfg.LogKeep)

	for _, w := range warnings {
		r.bus.Log(events.Warn, "%s", w.String())
	}
	if cfg.RCFile != "" {
		r.bus.Log(events.Info, "Loaded configuration from %s", cfg.RCFile)
	}
	if sb != nil {
		for _, l := range sb.describe() {
			r.bus.Log(events.Info, "Sandbox: %s", l)
		}
	}
	r.gov = newGovernor(cfg, events.ISOTime(start), projectPath(cwd), start, func(level, msg string) { r.bus.Log(events.Level(level), "%s", msg) })

	r.keeper = r.state
	if o.dashboard {
		stopServing, watched, err := startDashboard(cfg, r.dir, cwd, r.bus, r.keeper, sig, sb != nil && cfg.SandboxNetwork)
		if err != nil {
			return r, err
		}
		r.closers = append(r.closers, stopServing)
		r.keeper = watched
	}
	// After the dashboard's own refusals: a run that cannot start says
	// only why, not what its calls would meet.
	if refusal := rootRefusal(cfg, sb); refusal != nil {
		r.bus.Note(*refusal)
	}
	r.closers = append(r.closers, skipOnUSR1(sig))
	return r, nil
}

// close closes what the wiring opened, last first.
func (r *loopRun) close() {
	for i := len(r.closers) - 1; i >= 0; i-- {
		r.closers[i]()
	}
	r.closers = nil
}

// engine runs the engine to the run's end with settings s, the trackers
// of tasksOpts, each agent call through the sandbox sb. A stop while the
// engine is blocked outside its bounded steps ends whatever it still runs, and
// the run's end is recorded here.
func (r *loopRun) engine(s config.Config, tasksOpts tasks.Options, sb *agentSandbox, stdin io.Reader, sig *signals) engine.Result {
	sig.setOut(r.errOut)
	trackers := newTracker(tasksOpts, &sig.steps, func(w string) { r.bus.Log(events.Warn, "%s", w) })
	runAgent := func(ctx context.Context, c supervise.Command, o supervise.Options) supervise.Outcome {
		defer sig.steps.hold()()
		defer recordCall(r.dir, &o)()
		return sb.run(ctx, c, o)
	}
	res, ok := sig.engine(func() engine.Result {
		return engine.Run(s, engine.Deps{
			Bus:         r.bus,
			Keeper:      r.keeper,
			Dir:         r.dir,
			Project:     projectReader(s, r.dir),
			Repo:        r.repo,
			State:       r.state,
			Logs:        r.state,
			Now:         time.Now,
			Agent:       agentcall.Agent{Start: runAgent, Logs: r.state},
			LookPath:    exec.LookPath,
			Env:         os.Environ(),
			Stopper:     sig.stopper,
			Interactive: isTerminal(stdin),
			Stdin:       stdin,
			Version:     programVersion(),
			Ticks:       r.shown.TTY,
			Sandbox:     sb.gateWrap(),
			Swarm:       swarm.FromEnv(os.LookupEnv),
			Ask:         loopAsker(r.dir, func(err error) { r.bus.Warned(time.Time{}, events.Warn, err) }),
			Quota:       r.gov,
			Tasks:       trackers,
		})
	})
	if ok {
		return res
	}
	// Stopped while the engine was blocked outside an agent call (a read
	// that never returns, a quality gate that ignores SIGTERM): end
	// whatever command it still runs, with the helpers it started, say so
	// and record the stop ourselves.
	supervise.KillAll()
	se := engine.Cause(sig.stopper.Context())
	r.bus.Note(events.Interrupted{Signal: se.Name, Blocked: true})
	stop := events.Stop{Kind: events.StopSignal, Signal: se.Name}
	r.bus.Stopped(events.Moment{Action: "interrupted", Status: "stopped"}, events.End{Reason: se.Name, ExitCode: se.Code, Stop: &stop})
	return engine.Result{Code: se.Code, Stop: stop}
}

// gitWarn says a git command that would never end: the repository's
// answers then say "no change", and the person must know why.
func (r *loopRun) gitWarn(err error) {
	r.bus.Note(events.Logged{Level: events.Warn, Text: err.Error()})
}

// end lets the run's last events reach the notifiers, says why the run
// stopped, and gives its exit code.
func (r *loopRun) end(cfg *config.Config, res engine.Result, sig *signals) error {
	// The run's last events reach the notifiers before the exit, but a
	// hook that hangs holds it up for at most NOTIFY_TIMEOUT (a stop
	// signal's exit for at most signalDrain; a stop during the wait cuts
	// it to signalDrain, a second one to nothing).
	cut, stopCuts := drainCuts(sig)
	r.notifier.DrainCut(drainBound(cfg.NotifyTimeout, res.Stop), cut)
	stopCuts()
	// The run's closing line is the console's last: it goes through the
	// console before it closes, so it follows the last log line and cannot
	// block on a pipe nobody drains. The exit then carries only the code.
	if msg := res.Stop.Sentence(); res.Code != 0 && msg != "" && !res.Told {
		fmt.Fprintf(r.errOut, "ralph_loop: %s\n", msg)
	}
	return exitStatus(res.Code)
}

// precheck stops a start that is bound to fail (the old flat layout, no
// .ralph/, no prompt, no repository, no commit, a repository git refuses)
// before anything is written: no .ralph/ folders, lock, log line or
// status.json. A failed start-up check is shown as the loop shows it.
func precheck(cfg *config.Config, dir *ralphdir.Dir, repo engine.Repo, cwd, reset string, colour bool, stdout, stderr io.Writer) error {
	if err := checkLayout(cfg, dir, cwd); err != nil {
		return err
	}
	s := settingsFor(cfg, reset)
	err := engine.Precheck(s, dir, projectReader(s, dir), repo, exec.LookPath)
	var se *engine.StartupError
	if errors.As(err, &se) {
		shown := console.Options{Colour: colour, TTY: isTerminal(stdout), NoColour: noColour(os.LookupEnv), Verbose: cfg.Verbose, Width: terminalWidth(stdout)}
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
	change, err := dir.EnsureGitIgnore()
	if err != nil {
		return // never a state file git would carry
	}
	if change != ralphdir.IgnoreKept {
		fmt.Fprintln(stderr, "ralph_loop: "+safetext.Line(gitIgnoreLine(dir, cfg.ProjectDir, change)))
	}
	now := time.Now()
	m := events.Moment{TS: now, Action: "unexpected_exit", Status: "stopped", Snapshot: events.Snapshot{MaxCalls: cfg.MaxCallsPerHour}}
	if err := dir.WriteJSON(ralphdir.Status, store.StatusOf(m, "error", new(1))); err != nil {
		fmt.Fprintf(stderr, "ralph_loop: warning: %v\n", err)
	}
}

// prepare makes sure the loop may start here, once checkLayout and the
// start-up checks passed: the layout's folders and .gitignore (ignoreChange:
// it was not there or an earlier version's; the run logs that), the project's lock (the
// caller releases it), a writable folder, no stop yet; and the loop adopts
// the orphans of its agents' helpers.
func prepare(dir *ralphdir.Dir, sig *signals, stderr io.Writer) (lock *ralphdir.Lock, ignoreChange ralphdir.IgnoreChange, err error) {
	if err := dir.EnsureLayout(); err != nil {
		return nil, ralphdir.IgnoreKept, err
	}
	// The loop's own files stay out of the project's history (an agent
	// commits with `git add -A`); a .gitignore that is there is kept.
	ignoreChange, err = dir.EnsureGitIgnore()
	if err != nil {
		fmt.Fprintf(stderr, "ralph_loop: warning: %v; the loop's own files may be committed with the project\n", err)
	}
	lock, err = dir.Lock()
	if err != nil {
		return nil, ralphdir.IgnoreKept, err
	}
	if se := sig.stopped(); se != nil {
		lock.Unlock()
		return nil, ralphdir.IgnoreKept, se
	}
	if err := dir.CheckWritable(); err != nil {
		lock.Unlock()
		return nil, ralphdir.IgnoreKept, err
	}
	if err := guardCalls(dir, stderr); err != nil {
		lock.Unlock()
		return nil, ralphdir.IgnoreKept, err
	}
	return lock, ignoreChange, nil
}

// gitIgnoreLine says that the loop wrote .ralph/.gitignore, which a tree
// that was clean now shows as untracked (or, updated from an earlier
// version's, as changed), and how to commit it; the run logs it once
// nothing can refuse it any more, a start that failed prints it.
func gitIgnoreLine(dir *ralphdir.Dir, cwd string, change ralphdir.IgnoreChange) string {
	p := dir.Path(ralphdir.GitIgnore)
	shown := p
	if r, err := filepath.Rel(cwd, p); err == nil && !strings.HasPrefix(r, "..") {
		shown = filepath.ToSlash(r)
	}
	if change == ralphdir.IgnoreUpdated {
		return fmt.Sprintf("Updated %s to its short form (%s); commit it: %s", shown, ignoreShortWords, commitIgnoreHint(p, cwd))
	}
	return fmt.Sprintf("Added %s (the loop's own files stay out of git); it shows as untracked until you commit it: %s",
		shown, commitIgnoreHint(p, cwd))
}

// ignoreShortWords say what the short .ralph/.gitignore does, for the
// line that announces an earlier version's replaced.
const ignoreShortWords = "git ignores everything in it but the files you keep: prompt, plan, specs, .ralphrc"

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
